import { yamlLibrary } from './yaml-library.js';

export type StrictYamlResult = { ok: true; value: unknown } | { ok: false; message: string; line: number };

/**
 * Parses frontmatter YAML as the reference validator's strictyaml does: every scalar is a string
 * (`version: 1.0` is "1.0"), duplicate keys are errors, and flow collections (`[a, b]`, `{a: b}`),
 * anchors, aliases and tags other than `!!str` are refused. No colon fallback. `line` is 1-based within `yaml`.
 */
export function parseStrictYaml(yaml: string): StrictYamlResult {
  const { isAlias, isCollection, isNode, LineCounter, parseDocument, visit } = yamlLibrary();
  const lineCounter = new LineCounter();
  const document = parseDocument(yaml, { schema: 'failsafe', lineCounter, prettyErrors: false, uniqueKeys: true });
  const parseError = document.errors[0];
  if (parseError !== undefined)
    return { ok: false, message: parseError.message, line: lineCounter.linePos(parseError.pos[0]).line };
  // The failsafe schema knows no tag but `!!str` (and maps and sequences); any other tag fails to resolve.
  const unknownTag = document.warnings.find((warning) => warning.code === 'TAG_RESOLVE_FAILED');
  if (unknownTag !== undefined)
    return {
      ok: false,
      message: `explicit tags are not allowed: ${unknownTag.message}`,
      line: lineCounter.linePos(unknownTag.pos[0]).line,
    };

  let refusal: { message: string; offset: number } | undefined;
  visit(document, (_key, node) => {
    if (!isNode(node)) return undefined;
    const offset = node.range?.[0] ?? 0;
    if (isAlias(node)) refusal = { message: `aliases are not allowed (*${node.source})`, offset };
    else if (node.anchor !== undefined) refusal = { message: `anchors are not allowed (&${node.anchor})`, offset };
    else if (isCollection(node) && node.flow)
      refusal = { message: 'flow style sequences and mappings are not allowed; use block style', offset };
    return refusal === undefined ? undefined : visit.BREAK;
  });
  if (refusal !== undefined)
    return { ok: false, message: refusal.message, line: lineCounter.linePos(refusal.offset).line };
  return { ok: true, value: document.toJS() };
}
