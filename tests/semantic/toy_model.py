"""A user's own model for ``search.semantic_model`` (the ``Embedder`` interface): letter
counts, deterministic and instant. Only the tests load it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class ToyEmbedder:
    name = "toy/letters-v1"
    dim = 26

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for char in text.lower():
                if "a" <= char <= "z":
                    out[row, ord(char) - 97] += 1
        out += 1e-3
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)
