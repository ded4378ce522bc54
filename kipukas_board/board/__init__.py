"""The kipuka itself: map files (territories, stands, paths, docks) and graph helpers."""
