"""The setup calibration walk-through: which switch, which LED and which camera belongs where.

- :mod:`~kipukas_board.calibrate.files`: the calibration file (``calibration/<board>.toml``): read, validated,
  written atomically;
- :mod:`~kipukas_board.calibrate.sensor_walk`: place a token on each stand in turn, record channel → stand,
  flag faults;
- :mod:`~kipukas_board.calibrate.led_walk`: light each territory's segment in turn, confirm or shift it;
- :mod:`~kipukas_board.calibrate.session`: the walk in progress on a running board, saved after every step so
  an interrupted walk resumes where it stopped.
"""
