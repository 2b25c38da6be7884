"""KernelSelector: for one Params, the candidates of its primitive type and engine kind, filtered by supported
key and ``validate()``, the lowest ``priority()`` wins (clDNN ``kernel_selector``).

Kernels register with the ``@register`` decorator; ``kernel_selector.kernels`` imports every kernel module so the
registry is complete. ``explain(params)`` lists every candidate with its verdict; ``select`` raises
UnsupportedError carrying that explanation when nothing fits. A forced kernel name (``CLDNN_PY_FORCE_IMPL`` or
``BuildOptions(force_implementations=...)``) is taken if it is valid, otherwise the error says why not. Given a
:class:`~kernel_selector.tuning_cache.TuningCache`, a stored winner (kernel and variant) for this device and params
is taken before the priority rules (clDNN's tuning cache lookup), but only when it is one the auto-tuner could have
chosen: its kernel validates and is among :func:`tunable` (no reference kernel when a better one validates), and
its variant is one of that kernel's own ``tune_variants(params)`` (``{}``: the kernel's default). The file is not
trusted: any other stored winner is ignored with a warning.
"""

from __future__ import annotations

import importlib
import logging
import os
import pkgutil
from dataclasses import dataclass

from cldnn_py.errors import UnsupportedError

from .kernel_base import DONT_USE_IF_HAVE_SOMETHING_ELSE, KernelBase, KernelData
from .params import Params
from .tuning_cache import TuningCache, Winner

log = logging.getLogger("cldnn_py.tuning")

_REGISTRY: dict[str, list[KernelBase]] = {}
_LOADED_FOR: set[str] = set()  # engine kinds whose kernel modules are all imported ("all": every module)


def register(cls: type[KernelBase]) -> type[KernelBase]:
    """Class decorator: add one instance of a kernel to the registry under its primitive type."""
    inst = cls()
    if not inst.name or not inst.primitive:
        raise TypeError(f"{cls.__name__} must set name and primitive")
    lst = _REGISTRY.setdefault(inst.primitive, [])
    if any(k.name == inst.name and k.engine == inst.engine for k in lst):
        raise TypeError(f"kernel name {inst.name!r} registered twice for {inst.primitive}")
    lst.append(inst)
    return cls


def is_cpu_module(module: str) -> bool:
    """True for a module of the CPU engine's (numba) kernels or their helpers: ``<prim>_kernel_cpu_*`` or
    ``cpu_*`` (the naming rule of DESIGN.md §2; tests/unit/test_architecture.py checks every registered kernel)."""
    leaf = module.rsplit(".", 1)[-1]
    return "_kernel_cpu_" in leaf or leaf.startswith("cpu_")


def _load_all(engine: str | None = None) -> None:
    """Import the kernel modules of one engine kind (``"ocl"``: not the numba ones, whose import costs ~0.5 s;
    ``"cpu"``: only those), or of every kind (None)."""
    key = engine or "all"
    if key in _LOADED_FOR or "all" in _LOADED_FOR:
        return
    for name in sorted(kernel_modules()):
        if engine is None or is_cpu_module(name) == (engine == "cpu"):
            importlib.import_module(name)
    _LOADED_FOR.add(key)


_MODULES: set[str] | None = None


def kernel_modules() -> set[str]:
    """The names of every kernel module of the package (listed, not imported)."""
    global _MODULES
    if _MODULES is None:
        from . import kernels

        _MODULES = set(_list_modules(list(kernels.__path__), kernels.__name__ + "."))
    return _MODULES


def _list_modules(paths: list[str], prefix: str) -> list[str]:
    """The modules and packages under ``paths``, recursively, from the file system alone: what
    ``pkgutil.walk_packages`` yields, without importing each of the ~30 subpackages to look inside it (a
    loaded Program lists them at every start: 27-35 ms → a few)."""
    out = []
    for m in pkgutil.iter_modules(paths, prefix):
        out.append(m.name)
        if m.ispkg:
            leaf = m.name.rsplit(".", 1)[-1]
            out += _list_modules([os.path.join(p, leaf) for p in paths if os.path.isdir(os.path.join(p, leaf))],
                                 m.name + ".")
    return out


def load_module(module: str) -> None:
    """Import one kernel module (its kernels register themselves): a loaded Program imports only the kernels it
    runs, not all ~300 modules (0.5-2 s; the CPU kernels import numba). Raises UnsupportedError for a name that is
    not a kernel module of this package (a saved file cannot make us import anything else)."""
    if module not in kernel_modules():
        raise UnsupportedError(f"'{module}' is not a kernel module of kernel_selector")
    importlib.import_module(module)


def kernel_module(primitive: str, name: str, engine: str) -> str:
    """The module that defines kernel ``name`` of ``primitive`` for ``engine`` ("" when there is none)."""
    k = next((k for k in candidates(primitive, engine) if k.name == name), None)
    return type(k).__module__ if k is not None else ""


def candidates(primitive: str, engine: str | None = None) -> list[KernelBase]:
    """Every registered kernel of a primitive type: of engine kind ``engine`` only, or of all kinds (None)."""
    _load_all(engine)
    return [k for k in _REGISTRY.get(primitive, []) if engine is None or k.engine == engine]


@dataclass(frozen=True)
class Verdict:
    """One candidate's fate: ``reason`` is None when it is usable."""

    kernel: str
    priority: int | None
    reason: str | None

    def __str__(self) -> str:
        return f"{self.kernel}: " + (f"ok (priority {self.priority})" if self.reason is None
                                     else f"rejected: {self.reason}")


def tunable(verdicts: list[Verdict]) -> list[Verdict]:
    """The usable verdicts auto-tuning may choose among: every usable kernel, minus the reference kernels (priority
    DONT_USE_IF_HAVE_SOMETHING_ELSE or worse) when anything better validates (a reference convolution can take
    seconds on a real shape)."""
    ok = [v for v in verdicts if v.reason is None]
    fast = [v for v in ok if v.priority is not None and v.priority < DONT_USE_IF_HAVE_SOMETHING_ELSE]
    return fast or ok


class KernelSelector:
    """Chooses the kernel for a Params. Stateless; one module-level instance, ``selector``."""

    def explain(self, params: Params) -> list[Verdict]:
        """Every candidate of ``params.kind`` with its verdict, usable ones first by priority."""
        out = []
        for k in candidates(params.kind, params.engine):
            reason = self._reason(k, params)
            out.append(Verdict(k.name, k.priority(params) if reason is None else None, reason))
        out.sort(key=lambda v: (v.reason is not None, v.priority or 0, v.kernel))
        return out

    @staticmethod
    def _reason(k: KernelBase, params: Params) -> str | None:
        """Why kernel ``k`` cannot run ``params`` (engine kind, key, index range, tier, padding along a blocked
        dimension, fused ops, ``validate``), or None when it can."""
        reason = k.supported_key().mismatch(params, k.n_data_inputs) if k.engine == params.engine else \
            f"engine kind '{k.engine}' is not '{params.engine}'"
        if reason is None:
            reason = k.index_reason(params)
        if reason is None:
            reason = k.tier_reason(params)
        if reason is None:
            reason = k.blocked_padding_reason(params)
        if reason is None and params.fused_ops and not k.supports_fused_ops:
            reason = f"does not support fused ops ({', '.join(op.kind for op in params.fused_ops)})"
        other = [op.kind for op in params.fused_ops if op.kind not in k.fused_op_kinds]
        if reason is None and other:
            reason = f"does not take a fused {other[0]} (only {', '.join(sorted(k.fused_op_kinds))})"
        if reason is None:
            reason = k.validate(params)
        return reason

    def kernel_for(self, params: Params, name: str, variant: dict[str, int] | None = None,
                   module: str | None = None) -> KernelData:
        """The KernelData of the kernel called ``name`` with its tune ``variant`` (None or {}: its default), after the
        same checks :meth:`explain` makes for that one kernel (a saved Program is loaded this way: no other candidate
        is looked at; with ``module``, the kernel module :func:`kernel_module` named, only that module is imported).
        Raises UnsupportedError naming the primitive when no such kernel exists for its type and engine, when it
        cannot run ``params``, or when ``variant`` is not one of its own ``tune_variants``."""
        if module and params.engine not in _LOADED_FOR and "all" not in _LOADED_FOR:
            load_module(module)
            pool = _REGISTRY.get(params.kind, [])
        else:
            pool = candidates(params.kind, params.engine)
        k = next((k for k in pool if k.name == name and k.engine == params.engine), None)
        reason = "does not exist" if k is None else self._reason(k, params)
        if reason is None and k is not None and variant and variant not in k.tune_variants(params):
            reason = f"variant {variant} is not one of its tune variants"
        if reason is not None or k is None:
            raise UnsupportedError(f"{params.kind} '{params.layer_id}' on engine '{params.engine}': kernel '{name}' "
                                   f"{reason}")
        kd = k.kernel_data(params, variant) if variant else k.kernel_data(params)  # type: ignore[call-arg]
        kd.variant = dict(variant or {})
        return kd

    def select(self, params: Params, forced: str | None = None,
               cache: TuningCache | None = None) -> tuple[KernelBase, KernelData]:
        """The winning kernel and its KernelData: the forced one, else the tuning cache's winner for
        ``params.device`` when it is one the tuner could have chosen (:meth:`stored_winner`), else the lowest
        priority. Raises UnsupportedError with the explanation."""
        verdicts = self.explain(params)
        by_name = {k.name: k for k in candidates(params.kind, params.engine)}
        if forced is not None:
            v = next((v for v in verdicts if v.kernel == forced), None)
            if v is None or v.reason is not None:
                raise UnsupportedError(self._message(params, verdicts, f"forced kernel '{forced}' "
                                                     + ("does not exist" if v is None else "cannot run it")))
            k = by_name[forced]
            return k, k.kernel_data(params)
        ok = [v for v in verdicts if v.reason is None]
        if not ok:
            raise UnsupportedError(self._message(params, verdicts, "no kernel supports it"))
        won = self.stored_winner(params, cache, verdicts) if cache is not None else None
        if won is not None:
            k = by_name[won.kernel]
            kd = (k.kernel_data(params, won.variant) if won.variant  # type: ignore[call-arg]
                  else k.kernel_data(params))
            kd.variant = dict(won.variant)
            return k, kd
        k = by_name[ok[0].kernel]
        return k, k.kernel_data(params)

    def stored_winner(self, params: Params, cache: TuningCache,
                      verdicts: list[Verdict] | None = None) -> Winner | None:
        """The tuning cache's winner for ``params`` on ``params.device`` when it is one the auto-tuner could have
        chosen (module docstring), else None: nothing stored, or a stored winner that is ignored with a warning
        naming the kernel, the variant and why. ``verdicts``: :meth:`explain`'s, when the caller has them."""
        if params.device is None:
            return None
        won = cache.lookup(params.device, params)
        if won is None:
            return None
        by_name = {k.name: k for k in candidates(params.kind, params.engine)}
        reason = self._winner_problem(params, verdicts if verdicts is not None else self.explain(params), by_name,
                                      won)
        if reason is not None:
            log.warning("%s '%s': the tuning cache's winner %s %s is ignored: %s; using the priority rules",
                        params.kind, params.layer_id, won.kernel, won.variant, reason)
            return None
        return won

    @staticmethod
    def _winner_problem(params: Params, verdicts: list[Verdict], by_name: dict[str, KernelBase],
                        won: Winner) -> str | None:
        """Why a stored winner is not one the auto-tuner could have chosen for ``params``, or None when it is."""
        if won.kernel not in by_name:
            return "no such kernel for this primitive and engine"
        if not any(v.kernel == won.kernel for v in tunable(verdicts)):
            verdict = next(v for v in verdicts if v.kernel == won.kernel)
            return verdict.reason or "a reference kernel, while a better kernel validates"
        if won.variant and won.variant not in by_name[won.kernel].tune_variants(params):
            return "not one of the kernel's own variants for these params"
        return None

    @staticmethod
    def _message(params: Params, verdicts: list[Verdict], what: str) -> str:
        ins = ", ".join(str(x) for x in params.inputs)
        lines = [f"{params.kind} '{params.layer_id}' ({ins} -> {params.output}) on engine '{params.engine}': {what}"]
        lines += [f"  - {v}" for v in verdicts] or ["  (no kernel is registered for this primitive type)"]
        return "\n".join(lines)


selector = KernelSelector()
