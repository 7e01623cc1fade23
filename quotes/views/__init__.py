"""The quote pages: `pages` (quotes, revisions, lines, approvals, the customer's share pages),
`documents` (PDF jobs and downloads) and `spares_growth` (the design's spares and growth steps
taken into a quote). Views parse ids and forms; the services decide."""
