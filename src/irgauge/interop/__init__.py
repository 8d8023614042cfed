"""Other tools' objects and command lines: irgauge's measures as ir_measures measures."""

from irgauge.interop.ir_measures_bridge import to_ir_measures

__all__ = ["to_ir_measures"]
