"""The seat cameras that read shown cards: :mod:`~kipukas_board.hardware.cameras.port`,
:mod:`~kipukas_board.hardware.cameras.simulated`, :mod:`~kipukas_board.hardware.cameras.files` (images or a
video played as a camera), :mod:`~kipukas_board.hardware.cameras.opencv` (USB cameras) and
:mod:`~kipukas_board.hardware.cameras.pi_camera` (camera modules through picamera2)."""
