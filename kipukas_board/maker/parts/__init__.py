"""Printable parts and a 1:1 drilling template, generated from a map file.

``kipukas-board hardware parts --map NAME --out DIR`` writes, for one map:

* the drilling template (:mod:`kipukas_board.maker.parts.template`): an SVG in millimetres and a PDF tiled
  over A4 or Letter pages with alignment marks, pure Python apart from reportlab for the PDF;
* STL and STEP files of the printed parts (:mod:`kipukas_board.maker.parts.models`): a reed holder per
  stand kind, an LED channel and its diffuser per segment length, a camera mount per BOM camera
  and the electronics box with its lid.

Every size a part is built around comes from :mod:`kipukas_board.maker.parts.dimensions` (the BOM's parts)
and :mod:`kipukas_board.hardware.parts_spec` (the reed, the magnet and the gap between them), so the
models, the template and the tests cannot disagree. The CAD library (build123d, the ``parts`` extra)
is imported only when a model is built: the board itself never loads it.
"""
