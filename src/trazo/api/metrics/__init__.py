"""GET /metrics: the Prometheus exposition, for the scraper only."""
