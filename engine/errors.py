"""Why a valid request still has no design, in the words a sales engineer would use."""

from __future__ import annotations

from engine.text import Text


class DesignError(Exception):
    """No design fits the request; the message is one line naming what and why. `text` keeps the
    translatable template and its values (see engine.text)."""

    def __init__(self, message: str | Text) -> None:
        self.text = message if isinstance(message, Text) else Text(message)
        super().__init__(str(self.text))


class FabricTooLarge(DesignError):
    """Three tiers of the chosen switches cannot reach the requested size."""


class SwitchMismatch(DesignError):
    """Two tiers share no port speed, or a switch cannot serve the NIC speed."""


class MediaUnavailable(DesignError):
    """No media in the catalog carries a link of this speed over this length."""


class NoDesign(DesignError):
    """Every alternative that was tried failed."""
