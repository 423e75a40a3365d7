/** The file name `loadConfig({ dir })` looks for. */
export const CONFIG_FILE_NAME = 'ctxloom.yaml';
