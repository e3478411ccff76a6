"""The pipeline: discover -> extract (per file; cached; parallel) -> index -> check -> filter.

Modules, each importing only downward (facts, index, frontends, config, cache, scancache, and the modules
listed before it): ``extract`` (one file through its frontend, under a time limit), ``workers`` and
``isolated`` (worker processes), ``extraction`` (the cache-and-pool front), ``cpp_headers`` (the
shared-header plan and its repairs), ``cpp_expand`` (lazy call-graph expansion and its memo), ``check`` (the
one place an index is built and checked) and ``run`` (the run as named phases).
"""
