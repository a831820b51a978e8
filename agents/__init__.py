"""The trainers: self-play PPO, Deep Monte-Carlo and expert iteration, on the batched engine.

Torch lives here (never in ``murlan_env``). Reading order, for a newcomer following one PPO
update from the command to the gradient step:

1. ``ppo`` -- the algorithm in one file: its config, its acting and returns in the rollout,
   the learner's update (the clipped surrogate), ``train``. ``dmc`` is the same shape for
   Deep Monte-Carlo.
2. ``rollout`` -- ``SelfPlay``: thousands of matches stepped together, the opponents, and the
   typed ``Batch`` of learner decisions an update reads (each field's shape and meaning
   written once).
3. ``training`` -- the loop every self-play trainer shares (``TrainLoop``: rollouts, updates,
   evaluation, checkpoints), the ``Learner`` protocol it drives, and the run directory.

Around them: ``config`` (the configs' shared parts; no torch, no I/O), ``presets`` (the YAML
presets in ``configs/`` and the key=value overrides of ``murlan train``), ``checkpoint`` (the
one checkpoint format and loader), ``networks`` (the torch modules, precision, the
``load_policy`` contract for export and bots), ``seeds`` (every random stream a run draws,
named by purpose), ``minibatches`` (the minibatch loop every learner shares), ``returns`` (GAE
and Monte-Carlo returns over interleaved seats), ``workers`` and ``transport`` (where rollouts
run and how their batches reach the learner), ``inference`` (a batched forward-pass server),
``evaluation``, ``imitation`` (warm starts), ``distill`` and ``labelling`` (expert
iteration), ``export`` and ``policy_bot`` (trained policies as bundles and bots; the models'
float16 and int8 copies are ``murlan_env.bundle.quantize``'s).
"""
