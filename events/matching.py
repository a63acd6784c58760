"""Maximum-cardinality matching on general graphs (Edmonds' blossom algorithm), pure Python.

Shared by both kinds of event: the Lim pairing (events.pairing.lim) and the arena pairing
(arena.engine.pairing) ask it whether everybody can still be paired.

The Lim pairing asks the same question again and again: "if these two play each other (or this
player floats, or rests), can everybody else still be paired?" (Lim 8.3). That is a question
about perfect matchings in the compatibility graph, and Edmonds' algorithm answers it exactly.

`MatchingState` keeps a maximum matching of the players still unpaired and updates it
incrementally: removing a vertex or a pair exposes at most two vertices, and by Berge's theorem
only an augmenting path starting at one of them can restore the size. So each question costs
one augmenting-path search (usually a constant-time shortcut) instead of a new matching.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence

UNMATCHED = -1


class MatchingState:
    """A maximum matching of the alive vertices of a fixed graph, kept maximum as vertices go.

    Vertices are integers 0..n-1; `neighbours[v]` lists v's neighbours (symmetric). Only
    vertices in `alive` take part. Not thread-safe; cheap to copy with `copy()`.
    """

    __slots__ = ("neighbours", "neighbour_sets", "alive", "mate", "size")

    def __init__(
        self,
        neighbours: Sequence[Sequence[int]],
        alive: Iterable[int],
        neighbour_sets: Sequence[frozenset[int] | set[int]] | None = None,
        mate: Sequence[int] | None = None,
    ) -> None:
        """`mate`, when given, is a matching to start from (mate[v] is v's partner or
        UNMATCHED): the arena's closeness-first pairing, made maximum with the fewest flips."""
        n = len(neighbours)
        self.neighbours = neighbours
        self.neighbour_sets = (
            neighbour_sets if neighbour_sets is not None else [set(a) for a in neighbours]
        )
        self.alive = [False] * n
        for v in alive:
            self.alive[v] = True
        self.mate = [UNMATCHED] * n
        self.size = 0
        if mate is None:
            self._greedy()
        else:
            for v, w in enumerate(mate):
                if w != UNMATCHED and v < w and self.alive[v] and self.alive[w]:
                    self._match(v, w)
        for v in range(n):
            if self.alive[v] and self.mate[v] == UNMATCHED:
                self._augment_from(v)

    def copy(self) -> MatchingState:
        clone = MatchingState.__new__(MatchingState)
        clone.neighbours = self.neighbours
        clone.neighbour_sets = self.neighbour_sets
        clone.alive = self.alive[:]
        clone.mate = self.mate[:]
        clone.size = self.size
        return clone

    # -- queries -------------------------------------------------------------------------

    def alive_count(self) -> int:
        return sum(self.alive)

    def is_perfect(self) -> bool:
        return 2 * self.size == self.alive_count()

    def pairs(self) -> list[tuple[int, int]]:
        return [(v, m) for v, m in enumerate(self.mate) if m != UNMATCHED and v < m]

    # -- updates -------------------------------------------------------------------------

    def remove(self, v: int) -> None:
        """Take v out of the graph and restore a maximum matching of what is left."""
        if not self.alive[v]:
            return
        partner = self.mate[v]
        self._kill(v)
        if partner != UNMATCHED:
            self._augment_from(partner)

    def add(self, v: int) -> None:
        """Bring v (back) into the graph and restore a maximum matching."""
        if self.alive[v]:
            return
        self.alive[v] = True
        self.mate[v] = UNMATCHED
        self._augment_from(v)

    def try_remove(self, v: int) -> bool:
        """Take v out if that leaves the matching size unchanged (v can stay unpaired)."""
        partner = self.mate[v]
        if partner == UNMATCHED:
            self._kill(v)
            return True
        saved = (self.mate[:], self.size)
        self._kill(v)
        if self._augment_from(partner):
            return True
        self._restore(v, saved)
        return False

    def try_pair(self, a: int, b: int) -> bool:
        """Commit the pair a-b if the rest keeps a matching one smaller than now.

        With a perfect matching this reads: "can everybody else still be paired?" (Lim 8.3).
        a and b must be adjacent; on failure nothing changes.
        """
        if b not in self.neighbour_sets[a] or not (self.alive[a] and self.alive[b]):
            return False
        mate_a, mate_b = self.mate[a], self.mate[b]
        if mate_a == b:
            self._kill(a)
            self._kill(b)
            return True
        target = self.size - 1
        saved = (self.mate[:], self.size)
        self._kill(a)
        self._kill(b)
        if self.size >= target:
            return True
        # Both were matched elsewhere: their old partners are exposed. Shortcut first.
        if mate_a != UNMATCHED and mate_b != UNMATCHED and mate_b in self.neighbour_sets[mate_a]:
            self._match(mate_a, mate_b)
            return True
        for exposed in (mate_a, mate_b):
            if exposed != UNMATCHED and self.mate[exposed] == UNMATCHED:
                if self._augment_from(exposed):
                    return True
        self.alive[a] = self.alive[b] = True
        self.mate, self.size = saved
        return False

    # -- internals -----------------------------------------------------------------------

    def _restore(self, v: int, saved: tuple[list[int], int]) -> None:
        self.alive[v] = True
        self.mate, self.size = saved

    def _kill(self, v: int) -> None:
        partner = self.mate[v]
        if partner != UNMATCHED:
            self.mate[partner] = UNMATCHED
            self.mate[v] = UNMATCHED
            self.size -= 1
        self.alive[v] = False

    def _match(self, a: int, b: int) -> None:
        self.mate[a] = b
        self.mate[b] = a
        self.size += 1

    def _greedy(self) -> None:
        alive, mate = self.alive, self.mate
        # Fewest options first: a cheap start that leaves little for Edmonds to do.
        order = sorted(
            (v for v in range(len(alive)) if alive[v]),
            key=lambda v: len(self.neighbours[v]),
        )
        for v in order:
            if mate[v] != UNMATCHED:
                continue
            for w in self.neighbours[v]:
                if alive[w] and mate[w] == UNMATCHED:
                    self._match(v, w)
                    break

    def _augment_from(self, root: int) -> bool:
        """Edmonds' search for an augmenting path from the exposed vertex root; flip it."""
        if not self.alive[root] or self.mate[root] != UNMATCHED:
            return False
        alive, mate, neighbours = self.alive, self.mate, self.neighbours
        n = len(alive)
        # Shortcut: an exposed neighbour.
        for w in neighbours[root]:
            if alive[w] and mate[w] == UNMATCHED and w != root:
                self._match(root, w)
                return True
        parent = [UNMATCHED] * n
        base = list(range(n))
        used = [False] * n
        used[root] = True
        queue = deque([root])

        def lca(a: int, b: int) -> int:
            seen = [False] * n
            while True:
                a = base[a]
                seen[a] = True
                if mate[a] == UNMATCHED:
                    break
                a = parent[mate[a]]
            while True:
                b = base[b]
                if seen[b]:
                    return b
                b = parent[mate[b]]

        def mark_path(v: int, b: int, child: int, blossom: list[bool]) -> None:
            while base[v] != b:
                blossom[base[v]] = blossom[base[mate[v]]] = True
                parent[v] = child
                child = mate[v]
                v = parent[mate[v]]

        while queue:
            v = queue.popleft()
            for to in neighbours[v]:
                if not alive[to] or base[v] == base[to] or mate[v] == to:
                    continue
                if to == root or (mate[to] != UNMATCHED and parent[mate[to]] != UNMATCHED):
                    current = lca(v, to)
                    blossom = [False] * n
                    mark_path(v, current, to, blossom)
                    mark_path(to, current, v, blossom)
                    for i in range(n):
                        if alive[i] and blossom[base[i]]:
                            base[i] = current
                            if not used[i]:
                                used[i] = True
                                queue.append(i)
                elif parent[to] == UNMATCHED:
                    parent[to] = v
                    if mate[to] == UNMATCHED:
                        self._flip(to, parent)
                        return True
                    used[mate[to]] = True
                    queue.append(mate[to])
        return False

    def _flip(self, end: int, parent: list[int]) -> None:
        mate = self.mate
        v = end
        while v != UNMATCHED:
            pv = parent[v]
            next_v = mate[pv]
            mate[v] = pv
            mate[pv] = v
            v = next_v
        self.size += 1


def maximum_matching_size(n: int, edges: Iterable[tuple[int, int]]) -> int:
    """Size of a maximum matching of the graph on 0..n-1 with these edges."""
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        if a != b:
            neighbours[a].append(b)
            neighbours[b].append(a)
    return MatchingState(neighbours, range(n)).size
