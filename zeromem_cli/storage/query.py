"""What search asks storage for: the column weights both backends rank with.

(The structured candidate query joins this module: see ``storage.base.Backend``.)
"""

from __future__ import annotations

# BM25 column weights: content, tags, category, key. Labels the user chose count more.
BM25_WEIGHTS = (1.0, 2.0, 1.5, 3.0)
