"""The switch models one plane is sized with, and its oversubscription targets: what the
sizing, the bill of materials and the warnings each read of a plane."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction

from engine.catalog import NicSpec
from engine.ports import SwitchModel
from engine.request import DesignRequest, Oversubscription, PlaneRequest


@dataclass(frozen=True, kw_only=True)
class PlaneModels:
    """One plane's switch models, NIC and oversubscription targets, as the sizing chose them."""

    name: str
    leaf: SwitchModel
    spine: SwitchModel
    core: SwitchModel
    nic: NicSpec | None
    leaf_target: Fraction
    spine_target: Fraction


@functools.lru_cache(maxsize=256)
def _fraction(value: float) -> Fraction:
    # Targets are a handful of ratios (1, 2, 3, 7...); parsing one is costly next to sizing.
    return Fraction(str(value)).limit_denominator(1000)


def _compute_models(request: DesignRequest) -> PlaneModels:
    assert request.leaf is not None
    leaf = request.leaf.model
    spine = request.spine.model if request.spine else leaf
    core = request.core.model if request.core else spine
    over = request.oversubscription or Oversubscription()
    return PlaneModels(
        name="compute",
        leaf=leaf,
        spine=spine,
        core=core,
        nic=request.nic,
        leaf_target=_fraction(over.leaf),
        spine_target=_fraction(over.spine),
    )


def _plane_models(plane: PlaneRequest) -> PlaneModels:
    return PlaneModels(
        name=plane.name,
        leaf=plane.leaf.model,
        spine=plane.spine.model,
        core=plane.spine.model,
        nic=plane.nic,
        leaf_target=_fraction(plane.oversubscription),
        spine_target=Fraction(1),
    )
