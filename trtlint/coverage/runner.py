"""The run behind ``trtlint coverage`` (and the language server's hover): gather what :func:`trtlint.coverage.model.classify`
needs and call it per model.

- The project: unless ``no_project``, the project the models belong to (found as ``trtlint check`` finds it) is
  run through the normal pipeline (cached) so that its creators, plugin specs and findings are known. Models
  outside any project, or with ``no_project``, are judged against the built-in importers and TensorRT's own
  plugin library only.
- Each model is read twice from its bytes: by the ONNX frontend (the facts the TRT5xx rules judge, run over an
  index that holds the model) and by :mod:`trtlint.frontends.onnx_detail` (attributes, constant inputs, types),
  both in a child process under the ``file-timeout`` and ``worker-memory`` limits
  (:func:`trtlint.pipeline.isolated.call_limited`): a model that exceeds them is an error of that model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from trtlint.coverage.model import CoverageReport, ModelCoverage, classify, knowledge_of, problems_by_node, unchecked_for
from trtlint.frontends.onnx_detail import ModelError, read_model


def model_paths(paths: list[Path]) -> list[Path]:
    """The .onnx files named, and those under the directories named (sorted), without duplicates."""
    out: dict[Path, None] = {}
    for p in paths:
        if p.is_dir():
            for f in sorted(p.rglob("*.onnx")):
                if f.is_file() and ".trtlint_cache" not in f.parts:
                    out[f.resolve()] = None
        else:
            out[p.resolve()] = None
    return list(out)


WEAK_ROOTS = ("the current directory", "the directory given")  # found by no config, repository or profile marker


def project_index(paths: list[Path], *, no_project: bool = False, root: Optional[Path] = None, jobs: Optional[int] = None,
                  use_cache: bool = True, profile: Optional[str] = None):
    """(index, settings, root, is_project, reason) of the project the paths belong to; with ``no_project``, or
    outside any project, an index of no file: only the packs. ``reason`` says how the project was found, or why
    there is none. Unlike ``trtlint check``, a directory that is a project only because it is the current
    directory or the directory given (no config file, repository root or profile markers) is not indexed: the
    models are judged without a project, and the reason says so."""
    from trtlint.checks.registry import load_checked_settings
    from trtlint.config.project import project_root
    from trtlint.index.project_index import ProjectIndex
    from trtlint.config.packs import detect_profile, load_packs

    is_project, reason = False, "--no-project"
    if root is None and not no_project:
        found = project_root(paths)
        root, is_project, reason = found.root, found.is_project, found.reason
        if is_project and reason in WEAK_ROOTS:
            is_project, reason = False, (f"{root} is only {reason}: no config file, repository root or profile "
                                         "markers above the models, so it is not indexed")
    elif root is not None:
        is_project, reason = True, "--root"
    if root is None:
        root = _common_parent(paths)
    overrides = {"profile": profile} if profile else {}
    settings = load_checked_settings(root, overrides)
    if is_project:
        from trtlint.pipeline.run import run

        res = run(settings, None, jobs=jobs, use_cache=use_cache, memo=False)
        return res.index, settings, root, True, reason
    packs = load_packs([Path(p) if Path(p).is_absolute() else root / p for p in settings.rule_packs], root=root)
    prof = detect_profile(packs, root, "generic" if no_project else settings.profile)
    return ProjectIndex.build(root, prof, packs, [], settings=settings), settings, root, False, reason


def _common_parent(paths: list[Path]) -> Path:
    parents = [p.resolve() if p.is_dir() else p.resolve().parent for p in paths] or [Path.cwd()]
    base = parents[0]
    for p in parents[1:]:
        while base != p and base not in p.parents:
            base = base.parent
    return base


def coverage(paths: list[Path], *, tensorrt: Optional[str] = None, no_project: bool = False, root: Optional[Path] = None,
             jobs: Optional[int] = None, use_cache: bool = True, profile: Optional[str] = None) -> CoverageReport:
    models = model_paths(paths)
    index, settings, root, is_project, reason = project_index(models or paths, no_project=no_project, root=root, jobs=jobs,
                                                              use_cache=use_cache, profile=profile)
    if tensorrt:  # the rules judge the models against the release asked for too
        import dataclasses

        settings = dataclasses.replace(settings, tensorrt_version=tensorrt)
    from trtlint.pipeline.extract import make_context

    know = knowledge_of(index, tensorrt)
    from trtlint.checks.onnx._nodes import release_of
    ctx = make_context(settings, index.profile, root)
    details, facts = [], {}
    for path in models:
        label = _rel(path, root)
        detail, ff = _read_limited(path, label, ctx, settings)
        details.append((path, label, detail))
        if ff is not None:
            facts[label] = ff
    findings = _findings(index, settings, root, [facts[lab] for _p, lab, d in details
                                                 if not isinstance(d, ModelError) and lab in facts])
    out: list[ModelCoverage] = []
    for path, label, detail in details:
        if isinstance(detail, ModelError):
            out.append(ModelCoverage(label, skipped=detail.reason) if detail.not_fetched
                       else ModelCoverage(label, error=detail.reason))
            continue
        # the release the model is judged against: --tensorrt, else the one the project targets at the model's
        # path, as `trtlint check` judges the model (rules/ pack default when nothing says)
        release = tensorrt or release_of(index, label)
        out.append(classify(detail, know, problems_by_node(findings, label, detail), release))
    releases = sorted({m.tensorrt for m in out if m.tensorrt}) or [know.tensorrt]
    return CoverageReport(out, ", ".join(releases), unchecked_for(out, know), str(root) if is_project else None,
                          profile=index.profile.name, root=str(root), root_reason=reason,
                          profile_source="detected" if settings.profile in ("auto", "", None) else "from --profile" if profile else "configured")


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _read_one(path: Path, label: str, ctx):  # runs in a child process (call_limited)
    """A model's detail (:func:`read_model`) and its facts (the ONNX frontend's)."""
    from trtlint.frontends import SourceFile
    from trtlint.frontends.onnx import extract

    detail = read_model(path, label)
    if isinstance(detail, ModelError):
        return detail, None
    src = SourceFile(path=path, rel=label, kind="onnx", digest="")  # the digest keys the cache; none is used here
    return detail, extract(src, ctx)


def _read_limited(path: Path, label: str, ctx, settings):
    """:func:`_read_one` in a child process under the run's limits (``file-timeout``, ``worker-memory``): this
    process never parses a model itself; a model that stops the child is a :class:`ModelError` saying why."""
    from trtlint.pipeline.isolated import Stopped, call_limited

    try:
        return call_limited(_read_one, (path, label, ctx), float(settings.file_timeout or 0),
                            float(settings.worker_memory or 0))
    except Stopped as e:
        return ModelError(label, f"not analysed: {e.reason}"), None
    except (OSError, ValueError) as e:  # no process can be started here
        return ModelError(label, f"not analysed: no worker process could be started ({e})"), None


NODE_RULE_FAMILIES = ("onnx", "contract")  # the rules that judge model nodes: TRT5xx, and TRT10x on model routes


def _findings(index, settings, root: Path, models: list) -> list:
    """The findings `trtlint check` reports on the models' nodes: the rules of :data:`NODE_RULE_FAMILIES` the
    settings select, run once over the project's facts plus the models'."""
    from trtlint.checks.registry import select_rules
    from trtlint.index.project_index import ProjectIndex
    from trtlint.pipeline.check import run_rules

    if not models:
        return []
    facts = [f for f in index.files.values() if f.kind != "onnx"] + list(models)
    idx = ProjectIndex.build(root, index.profile, index.packs, facts, settings=settings)
    for attr in ("tensorrt_targets", "tensorrt_inferred", "tensorrt_scope"):  # the releases the project targets
        if hasattr(index, attr):
            setattr(idx, attr, getattr(index, attr))
    rules = [r for r in select_rules(settings.select, settings.ignore, settings.extend_select) if r.family in NODE_RULE_FAMILIES]
    return run_rules(rules, idx, settings)
