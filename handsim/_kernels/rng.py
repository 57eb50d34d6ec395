"""Counter-based random streams (numba).

Deal ``i`` of a study seeded ``s`` owns the stream ``stream_key(s, i, r)``; nothing else feeds
it, so any deal can be replayed alone and every configuration sees the same deck for the same
deal (common random numbers).  The generator is splitmix64 (Steele, Lea & Flood 2014), whose
state is one ``uint64`` kept in a 1-element array so kernels can advance it in place.
"""

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def stream_key(seed, deal, sub):
    """Initial state (uint64) of the stream of ``deal`` (and sub-stream ``sub``) of ``seed``."""
    z = _mix(np.uint64(seed) + _GOLDEN)
    z = _mix(z ^ (np.uint64(deal) * _GOLDEN + np.uint64(0x632BE59BD9B4E019)))
    z = _mix(z ^ (np.uint64(sub) * _M1 + np.uint64(0x2545F4914F6CDD1D)))
    return z


@njit(cache=True, inline="always")
def next_u64(state):
    """Advance ``state`` (uint64[1]) and return the next 64 random bits."""
    state[0] += _GOLDEN
    return _mix(state[0])


@njit(cache=True, inline="always")
def randbelow(state, n):
    """Uniform integer in ``0..n-1`` (n >= 1), by Lemire-free 53-bit float scaling."""
    x = next_u64(state) >> np.uint64(11)
    return np.int64(np.float64(x) * (1.0 / 9007199254740992.0) * n)


@njit(cache=True)
def shuffle(arr, n, state):
    """Fisher-Yates shuffle of ``arr[:n]`` in place, using ``state``."""
    for i in range(n - 1, 0, -1):
        j = randbelow(state, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t
