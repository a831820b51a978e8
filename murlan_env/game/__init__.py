"""The game, once: cards, the action catalogue, rule variants, the state schema, the batched engine,
the observation codec, rewards and the card/action translation. Everything else drives this."""
