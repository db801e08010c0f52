// Placeholder until the TMA descriptors land.
