/**
 * The mode of every file the emulator writes beside its state (the snapshot, its journals, export CSVs):
 * for the user alone. They hold the secret that signs export URLs, each server's environment (where a
 * stack keeps its own secrets) and the exports, which only a signed URL may read; the usual umask (022)
 * would leave them readable by every user of the machine.
 */
export const PRIVATE_FILE_MODE = 0o600;
