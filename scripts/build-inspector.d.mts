/** Writes the inspector page (app.js, app.css) into `outDir`; resolves to the sizes of what esbuild wrote. */
export function buildInspectorAssets(outDir: string): Promise<Record<string, number>>;
