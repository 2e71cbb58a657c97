"""List the modules of domain/, service/ and workers/ that sit in import cycles.

Uses grimp (import-linter's graph library), which counts imports made inside functions
too: a cycle closed by a function-level import is still a cycle. Prints one strongly
connected component (of more than one module) per line, and exits 1 if there is any.
"""

from __future__ import annotations

import sys

import grimp

PACKAGES = ("domain", "service", "workers")


def cycles(packages: tuple[str, ...] = PACKAGES) -> list[list[str]]:
    """The import graph's strongly connected components with more than one module
    (Tarjan's algorithm, iterative), each sorted, largest first."""
    graph = grimp.build_graph(*packages, cache_dir=None)  # never a stale graph
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in edges:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found, key=lambda c: (-len(c), c))


def main() -> int:
    found = cycles()
    for component in found:
        print(f"{len(component)} modules: {' '.join(component)}")
    print(f"{sum(len(c) for c in found)} modules in import cycles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
