"""Moving memories in and out: ``read`` parses and validates import files, ``imports``
plans and applies an import, ``export`` writes records out."""
