"""The kit's own fixtures, in-process. (Installed, the plugin provides them through its
``pytest11`` entry point; a conftest's fixtures take precedence over a plugin's, so this
stays harmless once the entry point is registered.)"""

from loom_ref.testing.plugin import loom_recording_sink, loom_runtime, loom_scripted_adapter

__all__ = ["loom_recording_sink", "loom_runtime", "loom_scripted_adapter"]
