"""What a design means: collectives per training step, single failures, growth steps (the read
model, its drawings, views and urls)."""
