// JSON Schema `pattern`s, matched in linear time.
//
// A pattern and a default both come from the server, and JavaScript's RegExp backtracks: a
// pattern like ^(a+)+$ against 27 "a"s and a "!" took 7.9 s in node, doubling with each
// character, and the window froze while the form checked its default. So patterns are never
// given to RegExp here: they are compiled to a Thompson NFA and run as a Pike VM (every state
// advanced together, one step per character), whose time grows with the text times the
// pattern, never exponentially. The subset is what JSON Schema patterns use (ECMA-262 with the
// `u` flag): literals, `.`, classes with ranges and negation, \d \w \s and their negations,
// \b \B, ^ $, groups (capturing, non-capturing, named), alternation, and the quantifiers
// * + ? {n} {n,} {n,m} (lazy or not: the same for a yes/no answer). Backreferences and
// lookaround cannot be run in linear time: such a pattern is reported as not checked here
// (the server still checks it), never run.

type CharTest = (c: number) => boolean;

type Node =
  | { t: "char"; test: CharTest }
  | { t: "assert"; kind: "^" | "$" | "b" | "B" }
  | { t: "cat"; items: Node[] }
  | { t: "alt"; items: Node[] }
  | { t: "repeat"; node: Node; min: number; max: number };

export class Unsupported extends Error {}

/** The most NFA instructions a pattern may compile to (counted repetitions expand). */
const MAX_PROGRAM = 20_000;

const isWord = (c: number) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isDigit = (c: number) => c >= 48 && c <= 57;
const SPACE = new Set([9, 10, 11, 12, 13, 32, 160, 5760, 8232, 8233, 8239, 8287, 12288, 65279]);
const isSpace = (c: number) => SPACE.has(c) || (c >= 8192 && c <= 8202);
const isLineTerminator = (c: number) => c === 10 || c === 13 || c === 8232 || c === 8233;

class Parser {
  private i = 0;
  private readonly chars: number[];
  constructor(source: string) {
    this.chars = Array.from(source, (ch) => ch.codePointAt(0)!);
  }

  parse(): Node {
    const node = this.alternation();
    if (this.i < this.chars.length) throw new Unsupported(`unexpected ")" at ${this.i}`);
    return node;
  }

  private peek(): number | undefined {
    return this.chars[this.i];
  }

  private eat(c: string): boolean {
    if (this.chars[this.i] === c.codePointAt(0)) {
      this.i++;
      return true;
    }
    return false;
  }

  private alternation(): Node {
    const items = [this.sequence()];
    while (this.eat("|")) items.push(this.sequence());
    return items.length === 1 ? items[0]! : { t: "alt", items };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.i < this.chars.length && this.peek() !== 0x7c && this.peek() !== 0x29) {
      items.push(this.quantified(this.atom()));
    }
    return { t: "cat", items };
  }

  private quantified(node: Node): Node {
    let min: number;
    let max: number;
    const counted = this.peek() === 0x7b ? this.counted() : null;
    if (counted) [min, max] = counted;
    else if (this.eat("*")) [min, max] = [0, Infinity];
    else if (this.eat("+")) [min, max] = [1, Infinity];
    else if (this.eat("?")) [min, max] = [0, 1];
    else return node;
    if (node.t === "assert") throw new Unsupported("a quantified assertion");
    this.eat("?"); // lazy: the same yes/no answer
    return this.quantified({ t: "repeat", node, min, max });
  }

  /** `{n}`, `{n,}` or `{n,m}` at the cursor, consumed; null (nothing consumed) otherwise. */
  private counted(): [number, number] | null {
    const rest = String.fromCodePoint(...this.chars.slice(this.i, this.i + 24));
    const m = /^\{(\d+)(,(\d*))?\}/.exec(rest);
    if (!m) return null;
    this.i += m[0].length;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
    if (max < min) throw new Unsupported("a repetition whose maximum is below its minimum");
    return [min, max];
  }

  private atom(): Node {
    const c = this.chars[this.i++];
    if (c === undefined) throw new Unsupported("an unfinished pattern");
    switch (c) {
      case 0x5e: // ^
        return { t: "assert", kind: "^" };
      case 0x24: // $
        return { t: "assert", kind: "$" };
      case 0x2e: // .
        return { t: "char", test: (x) => !isLineTerminator(x) };
      case 0x28: {
        // (
        if (this.eat("?")) {
          if (this.eat(":")) {
            // non-capturing
          } else if (this.eat("<") && this.peek() !== 0x3d && this.peek() !== 0x21) {
            while (this.i < this.chars.length && !this.eat(">")) this.i++;
          } else {
            throw new Unsupported("lookaround");
          }
        }
        const inner = this.alternation();
        if (!this.eat(")")) throw new Unsupported("an unclosed group");
        return inner;
      }
      case 0x5b: // [
        return { t: "char", test: this.charClass() };
      case 0x5c: // backslash
        return this.escape(false);
      case 0x29:
      case 0x2a:
      case 0x2b:
      case 0x3f:
        throw new Unsupported(`a misplaced "${String.fromCodePoint(c)}"`);
      default:
        return { t: "char", test: (x) => x === c };
    }
  }

  /** After a backslash: an escape as a node (assertions allowed outside classes). */
  private escape(inClass: boolean): Node {
    const c = this.chars[this.i++];
    if (c === undefined) throw new Unsupported("a trailing backslash");
    const ch = String.fromCodePoint(c);
    const char = (test: CharTest): Node => ({ t: "char", test });
    switch (ch) {
      case "d":
        return char(isDigit);
      case "D":
        return char((x) => !isDigit(x));
      case "w":
        return char(isWord);
      case "W":
        return char((x) => !isWord(x));
      case "s":
        return char(isSpace);
      case "S":
        return char((x) => !isSpace(x));
      case "b":
        if (inClass) return char((x) => x === 8);
        return { t: "assert", kind: "b" };
      case "B":
        if (inClass) throw new Unsupported("\\B in a class");
        return { t: "assert", kind: "B" };
      case "k":
        throw new Unsupported("a backreference");
      case "p":
      case "P":
        throw new Unsupported("a Unicode property escape");
    }
    if (ch >= "1" && ch <= "9") throw new Unsupported("a backreference");
    const literal = this.literalEscape(ch);
    return char((x) => x === literal);
  }

  private literalEscape(ch: string): number {
    const simple: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13, "0": 0 };
    if (ch in simple) return simple[ch]!;
    if (ch === "x") return this.hex(2);
    if (ch === "u") {
      if (this.eat("{")) {
        let value = 0;
        while (!this.eat("}")) {
          const d = this.chars[this.i++];
          if (d === undefined) throw new Unsupported("an unfinished \\u{…}");
          value = value * 16 + parseInt(String.fromCodePoint(d), 16);
        }
        return value;
      }
      return this.hex(4);
    }
    if (ch === "c") {
      const letter = this.chars[this.i++];
      if (letter === undefined) throw new Unsupported("an unfinished \\c");
      return letter % 32;
    }
    return ch.codePointAt(0)!;
  }

  private hex(digits: number): number {
    const text = String.fromCodePoint(...this.chars.slice(this.i, this.i + digits));
    if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(text)) throw new Unsupported("a malformed escape");
    this.i += digits;
    return parseInt(text, 16);
  }

  /** After `[`: the class as a test. */
  private charClass(): CharTest {
    const negated = this.eat("^");
    const parts: CharTest[] = [];
    let first = true;
    while (first || this.peek() !== 0x5d) {
      first = false;
      if (this.i >= this.chars.length) throw new Unsupported("an unclosed class");
      const low = this.classAtom();
      if (this.peek() === 0x2d && this.chars[this.i + 1] !== 0x5d && this.chars[this.i + 1] !== undefined) {
        this.i++;
        const high = this.classAtom();
        if (typeof low !== "number" || typeof high !== "number") throw new Unsupported("a range of a class escape");
        parts.push((x) => x >= low && x <= high);
      } else {
        parts.push(typeof low === "number" ? (x) => x === low : low);
      }
      if (this.peek() === 0x5d) break;
    }
    this.i++; // ]
    const any: CharTest = (x) => parts.some((p) => p(x));
    return negated ? (x) => !any(x) : any;
  }

  private classAtom(): number | CharTest {
    const c = this.chars[this.i++]!;
    if (c !== 0x5c) return c;
    const next = this.chars[this.i];
    if (next === undefined) throw new Unsupported("a trailing backslash");
    const ch = String.fromCodePoint(next);
    if ("dDwWsS".includes(ch)) {
      const node = this.escape(true);
      return (node as { test: CharTest }).test;
    }
    this.i++;
    if (ch === "b") return 8;
    if (ch === "k" || ch === "p" || ch === "P" || (ch >= "1" && ch <= "9")) {
      throw new Unsupported("an escape not checked here");
    }
    return this.literalEscape(ch);
  }
}

type Inst =
  | { op: "char"; test: CharTest }
  | { op: "assert"; kind: "^" | "$" | "b" | "B" }
  | { op: "split"; a: number; b: number }
  | { op: "jmp"; to: number }
  | { op: "match" };

function compile(node: Node): Inst[] {
  const prog: Inst[] = [];
  const emit = (inst: Inst) => {
    if (prog.length >= MAX_PROGRAM) throw new Unsupported("a pattern too large to check here");
    prog.push(inst);
    return prog.length - 1;
  };
  const gen = (n: Node): void => {
    switch (n.t) {
      case "char":
        emit({ op: "char", test: n.test });
        return;
      case "assert":
        emit({ op: "assert", kind: n.kind });
        return;
      case "cat":
        n.items.forEach(gen);
        return;
      case "alt": {
        const jumps: number[] = [];
        n.items.forEach((item, k) => {
          if (k < n.items.length - 1) {
            const split = emit({ op: "split", a: 0, b: 0 });
            (prog[split] as { a: number }).a = prog.length;
            gen(item);
            jumps.push(emit({ op: "jmp", to: 0 }));
            (prog[split] as { b: number }).b = prog.length;
          } else {
            gen(item);
          }
        });
        for (const j of jumps) (prog[j] as { to: number }).to = prog.length;
        return;
      }
      case "repeat": {
        for (let k = 0; k < n.min; k++) gen(n.node);
        if (n.max === Infinity) {
          const split = emit({ op: "split", a: 0, b: 0 });
          (prog[split] as { a: number }).a = prog.length;
          gen(n.node);
          emit({ op: "jmp", to: split });
          (prog[split] as { b: number }).b = prog.length;
        } else {
          const splits: number[] = [];
          for (let k = n.min; k < n.max; k++) {
            const split = emit({ op: "split", a: 0, b: 0 });
            (prog[split] as { a: number }).a = prog.length;
            splits.push(split);
            gen(n.node);
          }
          for (const s of splits) (prog[s] as { b: number }).b = prog.length;
        }
        return;
      }
    }
  };
  gen(node);
  emit({ op: "match" });
  return prog;
}

/** A compiled pattern: `test(text)` says whether it matches anywhere in text, in linear time. */
export class LinearPattern {
  private readonly prog: Inst[];

  constructor(readonly source: string) {
    this.prog = compile(new Parser(source).parse());
  }

  test(text: string): boolean {
    const chars = Array.from(text, (ch) => ch.codePointAt(0)!);
    const prog = this.prog;
    const at = (i: number) => chars[i];
    const holds = (kind: string, i: number): boolean => {
      const before = i > 0 && isWord(at(i - 1)!);
      const after = i < chars.length && isWord(at(i)!);
      switch (kind) {
        case "^":
          return i === 0;
        case "$":
          return i === chars.length;
        case "b":
          return before !== after;
        default:
          return before === after;
      }
    };
    // The states reached at position i, following jumps, splits and assertions that hold.
    const closure = (start: number, i: number, into: Set<number>, seen: Set<number>): boolean => {
      const stack = [start];
      while (stack.length > 0) {
        const pc = stack.pop()!;
        if (seen.has(pc)) continue;
        seen.add(pc);
        const inst = prog[pc]!;
        switch (inst.op) {
          case "match":
            return true;
          case "jmp":
            stack.push(inst.to);
            break;
          case "split":
            stack.push(inst.b, inst.a);
            break;
          case "assert":
            if (holds(inst.kind, i)) stack.push(pc + 1);
            break;
          case "char":
            into.add(pc);
            break;
        }
      }
      return false;
    };
    let current = new Set<number>();
    // Unanchored search: a new thread starts at every position.
    for (let i = 0; i <= chars.length; i++) {
      const seen = new Set<number>();
      for (const pc of current) seen.add(pc);
      if (closure(0, i, current, seen)) return true;
      if (i === chars.length) break;
      const c = chars[i]!;
      const next = new Set<number>();
      const nextSeen = new Set<number>();
      for (const pc of current) {
        const inst = prog[pc] as { op: "char"; test: CharTest };
        if (inst.test(c) && closure(pc + 1, i + 1, next, nextSeen)) return true;
      }
      current = next;
    }
    return false;
  }
}

const compiled = new Map<string, LinearPattern | Unsupported>();

/** The pattern compiled (cached), or why it is not checked here. */
export function linearPattern(source: string): LinearPattern | Unsupported {
  let found = compiled.get(source);
  if (!found) {
    try {
      found = new LinearPattern(source);
    } catch (error) {
      found = error instanceof Unsupported ? error : new Unsupported(String(error));
    }
    compiled.set(source, found);
  }
  return found;
}
