"""Durable storage: the SQLite event journal the state is rebuilt from."""
