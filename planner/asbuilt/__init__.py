"""As built: lldpctl or CSV uploads checked against the saved design by a worker, with a punch
list per rack (models, services, tasks, views, urls)."""
