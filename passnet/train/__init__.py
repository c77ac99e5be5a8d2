"""Training on trajectories (docs/training.md): export agent and synthesizer trajectories to a
chat fine-tuning dataset (``export``, leak-checked against evaluation suites by ``leak``), SFT
with TRL (``sft``), a tiny random model for runs without a hub (``tiny``), and for RL a
Gymnasium environment over PassBench tasks (``env``) and a GRPO reward function (``reward``).
Needs the ``train`` extra; modules import their heavy dependencies where used."""
