"""The seat cameras that read shown cards: :mod:`.port`, :mod:`.simulated`, :mod:`.files` (images or
a video played as a camera), :mod:`.opencv` (USB cameras) and :mod:`.pi_camera` (camera modules
through picamera2)."""
