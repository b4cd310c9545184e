"""Start-up shortcuts: spaCy pipelines built quickly and what the start-up cache keeps on disk between processes."""
