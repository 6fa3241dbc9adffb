// What a journal line's text must be before it is decoded, and what an execution id is
// (spec/journal.md 1.1): the nesting limit, unique member names, the id rule.
// Written from spec/journal.md; it shares no code with loom_ref.

// spec journal.nesting-limit: a line nests at most 128 arrays and objects, its own object
// the first. scanJson walks a line's text once, outside strings, for its deepest nesting and
// the first name an object repeats (journal.duplicate-names; names compared after escapes),
// so a line too deep is refused before JSON.parse and allJsonValues ever recurse into it.
export const NESTING_LIMIT = 128;

export function scanJson(text) {
  let depth = 0;
  let deepest = 0;
  const objects = []; // per open container: a Set of its names (objects) or null (arrays)
  let duplicate = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "{" || c === "[") {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (depth > NESTING_LIMIT) return { depth, duplicate };
      objects.push(c === "{" ? new Set() : null);
    } else if (c === "}" || c === "]") {
      depth -= 1;
      objects.pop();
    } else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      let k = j + 1;
      while (k < text.length && " \t\r\n".includes(text[k])) k++;
      const names = objects[objects.length - 1];
      if (text[k] === ":" && names && duplicate === null) {
        let name;
        try {
          name = JSON.parse(text.slice(i, j + 1));
        } catch {
          name = text.slice(i, j + 1); // a bad escape: JSON.parse of the line refuses it
        }
        if (names.has(name)) duplicate = name;
        names.add(name);
      }
      i = j;
    }
  }
  return { depth: deepest, duplicate };
}

// journal.execution-ids: 1-200 of A-Z a-z 0-9 _ . - (not first . or -), and not a name
// Windows reserves for a device (CON, PRN, AUX, NUL, COM0-9, LPT0-9), in any case, alone or
// before a dot
const ID_CHARS = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}$/;
const RESERVED = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])(?:\.|$)/i;
export const isExecutionId = (v) => typeof v === "string" && ID_CHARS.test(v) && !RESERVED.test(v);
