/**
 * What a terminal acts on instead of showing: C0 controls but tab and line feed (escape sequences
 * start with ESC; BEL ends an OSC), DEL, the C1 controls (U+009B is a one-character CSI), and the
 * bidirectional overrides and isolates, which reorder the characters that follow on screen.
 */
const terminalControl = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

/**
 * `text` with each terminal control written as `\u001B`-style text, for printing text someone else
 * wrote (a skill's description, a model's answer, a file name a script chose): an escape sequence
 * in it could otherwise clear the screen, retitle the window, write the clipboard (OSC 52) or hide
 * the lines after it. Line feeds and tabs stay; so do emoji and other visible text.
 */
export function terminalSafe(text: string): string {
  return text.replace(
    terminalControl,
    (character) => `\\u${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`,
  );
}
