"""The table's web page and JSON API (Flask, served by waitress)."""
