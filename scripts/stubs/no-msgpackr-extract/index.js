// msgpackr (through BullMQ) loads its native accelerator in a try/catch and works without it.
throw new Error('msgpackr-extract is replaced by a stub in this repository (see scripts/stubs/no-msgpackr-extract/README.md)')
