import type { Workspace } from '../workspace.js';

/** Where `editor_text` and its editor program are placed: bookkeeping under work/, never an output. */
export const editorFolder = 'work/.skillbox';
export const editorInputPath = `${editorFolder}/editor-input.txt`;
export const editorProgramPath = `${editorFolder}/editor.sh`;

/** Longest `editor_text`, in characters: it is written to disk on every call. */
export const maxEditorTextLength = 1024 * 1024;

/**
 * Places the text and a small editor program in the workspace and returns the EDITOR and VISUAL
 * that point at it: a command that opens an editor (`git commit`, `crontab -e`, `$EDITOR
 * out/note.txt`) gets the text written to the file it names, without a terminal.
 *
 * Both files are written through the runtime's `files()` contract, which replaces whatever stands
 * at the path (a planted link is replaced, never written through) and refuses a parent folder that
 * leads out of the workspace. They are rewritten on every call, inside the call's turn, so no earlier
 * command's edit of them survives into this run.
 */
export async function placeEditorText(workspace: Workspace, text: string): Promise<Record<string, string>> {
  await workspace.files.put(editorInputPath, {
    kind: 'file',
    mode: 0o644,
    content: { data: Buffer.from(text, 'utf8') },
  });
  const program = editorProgram(workspace.guestPath(''), workspace.guestPath(editorInputPath));
  await workspace.files.put(editorProgramPath, {
    kind: 'file',
    mode: 0o755,
    content: { data: Buffer.from(program, 'utf8') },
  });
  const editor = workspace.guestPath(editorProgramPath);
  return { EDITOR: editor, VISUAL: editor };
}

/**
 * The editor: copies the text onto its last argument. The workspace root is written into the
 * program rather than read from $WORKSPACE_DIR, which the call's `env` may change. It refuses a
 * target whose real folder is outside the workspace or inside `skills/` (the staged skill copies,
 * which a link-mode stage points at the host's skill sources), and replaces the target by rename,
 * so a link standing at the target is replaced rather than written through. The command itself
 * could write those places directly where the runtime lets it; the point is that the editor never
 * becomes the way a model's text reaches them. The sandbox remains the boundary.
 */
function editorProgram(guestRoot: string, guestInput: string): string {
  return `#!/bin/sh
# Written by skillbox for skill_run's editor_text (src/workspace/tools/editor-text.ts).
set -u
root=${shellQuote(guestRoot)}
input=${shellQuote(guestInput)}
fail() { printf 'editor_text: %s\\n' "$1" >&2; exit 2; }
[ "$#" -ge 1 ] || fail 'no file to write was passed to $EDITOR'
for target in "$@"; do :; done
folder=$(dirname -- "$target")
name=$(basename -- "$target")
case "$name" in .|..|/) fail "refusing \\"$target\\": not a file name" ;; esac
real_root=$(cd -- "$root" && pwd -P) || fail 'the workspace is not reachable'
real_folder=$(cd -- "$folder" 2>/dev/null && pwd -P) || fail "refusing \\"$target\\": its folder does not exist"
case "$real_folder/" in
  "$real_root"/*) ;;
  *) fail "refusing \\"$target\\": it is outside the workspace" ;;
esac
case "$real_folder/" in
  "$real_root"/skills/*) fail "refusing \\"$target\\": staged skill files are not written by the editor; name a file under out/ or work/" ;;
esac
[ -d "$real_folder/$name" ] && fail "refusing \\"$target\\": it is a folder"
temporary="$real_folder/.editor-text.$$"
cp -- "$input" "$temporary" || fail "cannot write in the folder of \\"$target\\""
mv -f -- "$temporary" "$real_folder/$name" || { rm -f -- "$temporary"; fail "cannot replace \\"$target\\""; }
`;
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
