"""Card payloads and the card catalog."""
