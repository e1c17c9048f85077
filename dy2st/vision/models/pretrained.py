"""What `pretrained=True` says: dy2st downloads nothing; load Paddle's weights from a file."""
from __future__ import annotations


def refuse_download(arch: str) -> None:
    raise ValueError(
        f"{arch}(pretrained=True): dy2st does not download weights. Build it with "
        f"pretrained=False, then model.set_state_dict(weights), where weights come from "
        f"paddle.load(path) of a dy2st state file, or from a Paddle .pdparams converted once to "
        f"an .npz (Paddle's file is a pickle, which dy2st does not load): see docs/vision.md")
