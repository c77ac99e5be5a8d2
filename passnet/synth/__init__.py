"""Built-in pass synthesizer: template code generation from a task's FX graph, no LLM.

``passnet synth TASK --out DIR`` traces every variant of a task, picks the largest run of
supported ops (:mod:`.graph`), turns it into a pattern that the matcher finds in every variant
(:mod:`.pattern`; by default a generic rule whose sizes and constants are free literals bound
at match time, :mod:`.free`), lowers it through the op registry (:mod:`.registry`, :mod:`.opdefs`) to
an IR (:mod:`.ir`, :mod:`.stmts`: :mod:`.lower`, :mod:`.kernel`, :mod:`.wrapper`) whose loads
and stores follow each tensor's real strides through every view, prints it as one Triton
kernel and its wrapper (:mod:`.printer`, :mod:`.emit`), and keeps the pass only if
the evaluator finds it correct on every variant (:mod:`.driver`); each verified synthesis is
also recorded as an agent trajectory (:mod:`.trajectory`). ``passnet bench -c synth`` runs it
per task (passnet.runner.synth_candidate). See docs/synth.md.
"""

from passnet.synth.driver import SynthResult, synthesize_task

__all__ = ["SynthResult", "synthesize_task"]
