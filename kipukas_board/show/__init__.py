"""What the players see and hear: territory lighting and spoken announcements."""
