"""The pathway registry: one frozen ``PathwaySpec`` per pathway, the only place the GUI,
the CLI, export, the record and the salt store learn what a pathway is.

Each pathway's ``SPEC`` lives in a light module of ``core/pathways/specs/`` (no pandas:
the CLI builds its parser from the specs and ``deid --help`` stays fast);
the registry finds those modules itself (``pkgutil``) the first time a spec is asked
for. The spec names its builder ``"module:function"`` (imported when a release is
built) or holds the function. So a new pathway is its ``Pathway`` member, its spec and
builder, and its gate rows; tests and plug-ins may ``register`` a spec of their own.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

from deid_desktop.core.errors import Problem, UsageError
from deid_desktop.core.model import Pathway, Project, register_pathway_label

if TYPE_CHECKING:
    from deid_desktop.core.model import Release


@dataclass(frozen=True)
class ReleaseWording:
    """What export writes about dates and identifiers (data dictionary and README)."""

    dates: str  # a date column
    identifier: str  # the released ID column that replaces the person key
    zip: str  # the ZIP-role column (or the zip3 derived from it)
    birth_date: str | None = None  # None: as ``dates``
    age: str | None = None  # None: an age column is described by its class

    def date_treatment(self, *, birth_date: bool) -> str:
        if birth_date and self.birth_date is not None:
            return self.birth_date
        return self.dates


#: The ZIP wording of a pathway that cuts ZIPs to allow-listed ZIP3s.
ZIP3_WORDING = (
    "first three digits; prefixes whose area holds 20,000 people or fewer (and "
    "unknown, malformed or missing ZIPs) become 000"
)


def no_preconditions(project: Project) -> list[Problem]:
    return []


@dataclass(frozen=True)
class PathwaySpec:
    """Everything the product knows about one pathway, in one place."""

    id: Pathway
    label: str  # the honest label every release and record carries; never "anonymous"
    title: str  # GUI radio button and option box
    help: str  # GUI text under the title, CLI help
    cli_name: str  # ``deid pathway PROJECT <cli_name>``
    needs_salt: bool  # the keyed hash: the salt comes from the OS keyring
    # (extract, project, *, [salt,] progress, cancel) -> Release, nothing written; the
    # salt is passed only when ``needs_salt``. The function, or "package.module:function".
    builder: Callable[..., Release] | str
    wording: ReleaseWording
    options_type: type | None = None  # the options dataclass this pathway reads
    options_field: str | None = None  # the Project attribute holding them (the record)
    preconditions: Callable[[Project], list[Problem]] = no_preconditions
    #: what the risk verdict reads (``core.risk.verdict``): "safe_harbor", "linkable" or
    #: "limited" - the access model and the wording follow it
    kind: str = "safe_harbor"

    @property
    def builder_function(self) -> Callable[..., Release]:
        if callable(self.builder):
            return self.builder
        module, _, name = self.builder.partition(":")
        builder: Callable[..., Release] = getattr(importlib.import_module(module), name)
        return builder

    def options_of(self, project: Project) -> object | None:
        """This pathway's options in ``project`` (for the export record), if it has any."""
        return None if self.options_field is None else getattr(project, self.options_field)

    @property
    def module(self) -> ModuleType:
        """The module that defines the builder (its ``CHECKS`` are gate rows)."""
        if callable(self.builder):
            return importlib.import_module(self.builder.__module__)
        return importlib.import_module(self.builder.partition(":")[0])


_SPECS: dict[str, PathwaySpec] = {}
_LOADED = False


def _load_builtin() -> None:
    """Import every module of ``core.pathways.specs`` once and register its ``SPEC``."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    package = importlib.import_module(f"{__package__}.specs")
    found: list[PathwaySpec] = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        spec = getattr(module, "SPEC", None)
        if isinstance(spec, PathwaySpec):
            found.append(spec)
    order = list(Pathway)
    for spec in sorted(found, key=lambda s: order.index(s.id) if s.id in order else len(order)):
        if spec.id not in _SPECS:
            register(spec)


def register(spec: PathwaySpec) -> PathwaySpec:
    """Add ``spec`` after the built-in pathways; its id and CLI name must both be new."""
    _load_builtin()
    for other in _SPECS.values():
        if other.id == spec.id or other.cli_name == spec.cli_name:
            raise ValueError(f"pathway {spec.id!s} / {spec.cli_name} is registered twice")
    _SPECS[str(spec.id)] = spec
    register_pathway_label(spec.id, spec.label)
    return spec


def unregister(pathway: Pathway | str) -> None:
    """Remove a registered pathway (tests)."""
    _SPECS.pop(str(pathway), None)
    register_pathway_label(pathway, None)


def all_specs() -> tuple[PathwaySpec, ...]:
    """Every pathway, in the order the GUI lists them and the CLI offers them."""
    _load_builtin()
    return tuple(_SPECS.values())


def pathway_spec(pathway: Pathway | str) -> PathwaySpec:
    """The spec of ``pathway``; a clear ``UsageError`` (never ``KeyError``) if unknown."""
    _load_builtin()
    try:
        return _SPECS[str(pathway)]
    except KeyError:
        names = ", ".join(s.cli_name for s in _SPECS.values())
        raise UsageError(
            "The project names a pathway this version does not know",
            hint=f"Choose one of: {names}.",
        ) from None


def spec_by_cli_name(name: str) -> PathwaySpec:
    for spec in all_specs():
        if spec.cli_name == name:
            return spec
    raise UsageError(
        f"There is no pathway called {name!r}",
        hint="Choose one of: " + ", ".join(s.cli_name for s in all_specs()) + ".",
    )


def needs_salt(project: Project) -> bool:
    """Whether building ``project``'s release needs the salt from the keyring."""
    return pathway_spec(project.pathway).needs_salt


def preconditions(project: Project) -> list[Problem]:
    """What the project's pathway still lacks before an export (e.g. the DUA)."""
    return pathway_spec(project.pathway).preconditions(project)
