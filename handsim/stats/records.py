"""The result seam: a game declares the record of one deal once, and the rest is derived from it.

Each game's ``records.py`` lists the arrays its engine writes for a chunk of deals (a
:class:`Record` of :class:`Field`), in the order of the driver's output arguments, and the per-deal
Parquet columns made from them (:class:`Column`).  From that one declaration:

* :meth:`Record.allocate` makes the chunk's output arrays (zeroed, each field's dtype and shape)
  and :meth:`Record.outputs` passes them to the driver in its order;
* :meth:`Record.check` checks a chunk's arrays as they come back from a worker (every field, its
  dtype and its shape), before anything counts them;
* :func:`per_deal_columns` makes the per-deal table's columns (one row per deal and seat), and
  :func:`per_deal_parquet` writes them (both games' ``per_deal/part-*.parquet``).

A new statistic in every study of a game is then one field here (if the engine must record
something new), one counter in the game's accumulator and one column of its tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import StudyError

#: How a field spans a chunk: one value per deal, or one per deal and seat.
PER_DEAL, PER_SEAT = "deal", "seat"


@dataclass(frozen=True)
class Field:
    """One array of a chunk's record.

    Attributes
    ----------
    name : str
        Its key in the chunk's dict of arrays.
    dtype : numpy dtype
        Its element type (the driver's argument type).
    per : str
        :data:`PER_DEAL` (shape ``(n,)``) or :data:`PER_SEAT` (shape ``(n, P)``).
    doc : str
        What it holds, with its unit.
    """

    name: str
    dtype: type
    per: str
    doc: str

    def shape(self, n: int, players: int) -> tuple[int, ...]:
        return (n, players) if self.per == PER_SEAT else (n,)


class Record:
    """The arrays a game's driver writes for ``n`` rows (deals, games or match rounds).

    Parameters
    ----------
    name : str
        What one row is (``"deal"``, ``"match round"``, ``"game"``): used in messages.
    fields : sequence of Field
        In the order the driver takes them as output arguments.

    Raises
    ------
    ValueError
        Two fields of one name, or a field that is neither per deal nor per seat.
    """

    def __init__(self, name: str, fields: Sequence[Field]):
        self.name, self.fields = name, tuple(fields)
        names = [f.name for f in self.fields]
        if len(set(names)) != len(names):
            raise ValueError(f"record {name!r}: a field is declared twice: {names}")
        bad = [f.name for f in self.fields if f.per not in (PER_DEAL, PER_SEAT)]
        if bad:
            raise ValueError(f"record {name!r}: fields {bad} are neither per deal nor per seat")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def allocate(self, n: int, players: int) -> dict[str, np.ndarray]:
        """Zeroed output arrays for ``n`` rows of ``players`` seats, by field name, in order."""
        return {f.name: np.zeros(f.shape(n, players), f.dtype) for f in self.fields}

    def outputs(self, out: dict[str, np.ndarray]) -> tuple[np.ndarray, ...]:
        """The arrays of ``out`` in the driver's argument order."""
        return tuple(out[f.name] for f in self.fields)

    def check(self, res: dict, n: int, players: int, where: str = "") -> None:
        """Check a chunk's arrays: exactly the declared fields, each of its dtype and shape.

        Raises
        ------
        handsim.errors.StudyError
            A field missing or extra, or an array of another dtype or shape (a worker or a
            transport that returned something else), naming the field and ``where``.
        """
        missing = [k for k in self.names if k not in res]
        extra = [k for k in res if k not in self.names]
        if missing or extra:
            raise StudyError(f"a chunk's {self.name} record{where} has fields {sorted(res)}: "
                             f"missing {missing}, not declared {extra}")
        for f in self.fields:
            a = res[f.name]
            want = f.shape(n, players)
            if not isinstance(a, np.ndarray) or a.dtype != np.dtype(f.dtype) or a.shape != want:
                got = f"{a.dtype}{list(a.shape)}" if isinstance(a, np.ndarray) else type(a).__name__
                raise StudyError(f"a chunk's {self.name} record{where}: field {f.name!r} is {got}, "
                                 f"declared {np.dtype(f.dtype)}{list(want)}")


@dataclass(frozen=True)
class Column:
    """One column of the per-deal table, made from one field of the record.

    Attributes
    ----------
    name : str
        The column's name.
    field : str
        The record field it reads.
    bit : int or None
        A flag column: true where this bit of the field is set.
    nonzero : bool
        A yes/no column: true where the field is not 0.
    doc : str
        What it holds.
    """

    name: str
    field: str
    doc: str
    bit: int | None = None
    nonzero: bool = False

    def values(self, record: Record, arrays, players: int) -> np.ndarray:
        """The column's values, one per deal and seat (deal-major), from the block's ``arrays``
        (anything with the fields as attributes or keys)."""
        a = arrays[self.field] if isinstance(arrays, dict) else getattr(arrays, self.field)
        a = a.ravel() if record.field(self.field).per == PER_SEAT else np.repeat(a, players)
        if self.bit is not None:
            return (a & (1 << self.bit)) > 0
        if self.nonzero:
            return a > 0
        return a


def per_deal_columns(record: Record, columns: Sequence[Column], arrays, players: int) -> dict[str, np.ndarray]:
    """The per-deal table's columns declared by ``columns`` (each from a field of ``record``), by
    name, in order: one row per deal and seat, deal-major."""
    return {c.name: c.values(record, arrays, players) for c in columns}


#: Per-deal columns whose values run up one deal at a time: delta-encoded in the Parquet files.
COUNTER_COLUMNS = ("deal", "match")


def per_deal_parquet(columns: dict) -> bytes:
    """One chunk's per-deal table (``per_deal/part-*.parquet``) as Parquet bytes.

    Columns of repeated words (``policy``: the line-up's names) are dictionary-encoded, each name
    stored once per column chunk and the rows as small indices; the deal and match numbers
    (:data:`COUNTER_COLUMNS`), which run up one deal at a time and repeat once per seat, are
    delta-encoded (a few bits a row where plain encoding takes 8 bytes); every column is
    compressed with zstd.  The values and dtypes are those of ``pandas.DataFrame(columns)``:
    ``pandas.read_parquet`` gives that frame back (text columns stay text, not categorical).

    Parameters
    ----------
    columns : dict of str to array
        The table's columns by name, in order, one value per deal and seat.

    Returns
    -------
    bytes
    """
    import io

    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(pd.DataFrame(columns), preserve_index=False)
    delta = [c for c in COUNTER_COLUMNS if c in table.column_names and pa.types.is_integer(table.schema.field(c).type)]
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd", use_dictionary=[c for c in table.column_names if c not in delta],
                   column_encoding={c: "DELTA_BINARY_PACKED" for c in delta} or None)
    return buf.getvalue()
