"""Reading and writing instances and answers: every file format (``formats``), TSPLIB (``tsplib``),
sequence files (``sequences``) and exact numbers read from text (``numbers``)."""
