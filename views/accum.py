"""DVE accumulators (one fp32 per partition) and the 8 index registers per partition."""

from __future__ import annotations

import numpy as np
from rich.text import Text

from neurondbg.debug.snapshot import Snapshot
from neurondbg.views.lineview import LineView


class AccumView(LineView):
    """p  acc  idx0..idx7; rows the last step wrote are highlighted."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.acc = np.zeros(0, np.float32)
        self.idx = np.zeros((0, 8), np.uint32)
        self.rows: set[int] = set()

    def show(self, snap: Snapshot) -> None:
        old_acc, old_idx, old_rows = self.acc, self.idx, self.rows
        self.acc = (snap.acc if snap.acc is not None else np.zeros(0, np.float32)).copy()
        self.idx = (snap.idx if snap.idx is not None else np.zeros((0, 8), np.uint32)).copy()
        rows: set[int] = set()
        for w in snap.record.writes if snap.record is not None else ():
            if w.target in ("acc", "idx"):
                index = w.index
                if isinstance(index, slice):
                    rows.update(range(*index.indices(len(self.acc))))
        self.rows = rows
        if old_acc.shape != self.acc.shape or old_idx.shape != self.idx.shape:
            self.update_size()
            return
        diff = (old_acc != self.acc) | (old_idx != self.idx).any(axis=1)
        self.refresh_indices([*np.flatnonzero(diff).tolist(), *(old_rows ^ rows)])

    def line_count(self) -> int:
        return len(self.acc)

    def content_width(self) -> int:
        return 16 + 9 * self.idx.shape[1] if self.idx.ndim == 2 else 16

    def line_text(self, index: int) -> Text:
        style = self.written_style if index in self.rows else ""
        text = Text(f"p{index:<3} ", style="dim")
        text.append(f"{float(self.acc[index]):>11.5g}", style=style)
        if self.idx.ndim == 2 and index < self.idx.shape[0]:
            text.append("  " + " ".join(f"{int(v):>8}" for v in self.idx[index]), style="dim")
        return text
