"""The caches in .trtlint_cache/: facts per file, text scans per file, the run memo."""
