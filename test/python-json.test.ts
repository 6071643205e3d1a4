// python-json.ts on its own: Python's `json.dumps(json.loads(text))` (what NovelAI's signature is
// computed over), pinned against Python 3.11.7's own json module. Every expected text below was
// printed by `python3 -c 'import json; print(json.dumps(json.loads(TEXT)))'`, and every refused
// text is one json.loads refuses with JSONDecodeError.
import { describe, expect, it } from 'vitest';
import { MAX_DEPTH, PythonJsonError, parsePythonJson, pythonFloatRepr, pythonJsonDumps } from '../src/detectors/python-json.js';

const roundTrip = (text: string) => pythonJsonDumps(parsePythonJson(text));

describe('json.dumps(json.loads(text)) as Python writes it', () => {
  const CASES: [string, string][] = [
    [
      '{"a": 1, "b": [1, 2.5, -0, -0.0, 10.0, 1e16, 1E15, 1e-5, 0.0001, 12345678901234567890123, 1.5e300, 1e400, -1e400, 2.5E+3, 3e-07, 123456789012345678.0]}',
      '{"a": 1, "b": [1, 2.5, 0, -0.0, 10.0, 1e+16, 1000000000000000.0, 1e-05, 0.0001, 12345678901234567890123, 1.5e+300, Infinity, -Infinity, 2500.0, 3e-07, 1.2345678901234568e+17]}',
    ],
    ['  {"x":true,"y":false,"z":null,"n":NaN,"i":Infinity,"m":-Infinity}  ', '{"x": true, "y": false, "z": null, "n": NaN, "i": Infinity, "m": -Infinity}'],
    // A repeated key: the first one's place, the last one's value.
    ['{"k": 1, "j": 2, "k": 3}', '{"k": 3, "j": 2}'],
    ['{"k": 1, "k": [2], "j": 4, "k": {"k": 5, "k": 6}}', '{"k": {"k": 6}, "j": 4}'],
    [
      '"\\u00e9\\uD83D\\ude00 café 😀 \\"q\\" \\\\ \\/ \\b\\f\\n\\r\\t \x7f ~ "',
      '"\\u00e9\\ud83d\\ude00 caf\\u00e9 \\ud83d\\ude00 \\"q\\" \\\\ / \\b\\f\\n\\r\\t \\u007f ~ "',
    ],
    ['"\\u0000\\u0001\\u001f\\u0020\\u007e\\u0080\\u00ff\\u0100\\uABCD\\uffff"', '"\\u0000\\u0001\\u001f ~\\u0080\\u00ff\\u0100\\uabcd\\uffff"'],
    ['"plain ascii: !#$%&\'()*+,-.09:;<=>?@AZ[]^_`az{|}"', '"plain ascii: !#$%&\'()*+,-.09:;<=>?@AZ[]^_`az{|}"'],
    ['"a\\"b\\\\c"', '"a\\"b\\\\c"'],
    ['""', '""'],
    ['[]', '[]'],
    ['{}', '{}'],
    ['[ ]', '[]'],
    ['{ }', '{}'],
    ['\t\r\n[1 ,\t2\n]\r\n', '[1, 2]'],
    ['{ "a" : 1 , "b" :2 }', '{"a": 1, "b": 2}'],
    [
      '[0.1, 100.0, 1234567890123456.0, 12345678901234567.0, 0.001, 0.00012, 1.0e-4, 5e-324, 1.7976931348623157e308, -1.25e-10, 1e22, 1e21]',
      '[0.1, 100.0, 1234567890123456.0, 1.2345678901234568e+16, 0.001, 0.00012, 0.0001, 5e-324, 1.7976931348623157e+308, -1.25e-10, 1e+22, 1e+21]',
    ],
    ['[{"a": [{"b": {}}]}, [[]], "x"]', '[{"a": [{"b": {}}]}, [[]], "x"]'],
    ['-7', '-7'],
    ['0', '0'],
    ['-0', '0'],
    ['true', 'true'],
    ['-Infinity', '-Infinity'],
  ];
  it.each(CASES)('%s', (text, python) => {
    expect(roundTrip(text)).toBe(python);
  });

  it('keeps the tree it parsed: kinds, literals and the order of entries', () => {
    expect(parsePythonJson('{"b": [1.50, "x", null], "a": {}}')).toEqual({
      kind: 'object',
      entries: [
        ['b', { kind: 'array', items: [{ kind: 'number', literal: '1.50' }, { kind: 'string', value: 'x' }, { kind: 'literal', text: 'null' }] }],
        ['a', { kind: 'object', entries: [] }],
      ],
    });
    expect(parsePythonJson(' "a\\nb" ')).toEqual({ kind: 'string', value: 'a\nb' });
  });
});

describe('what json.loads refuses', () => {
  const REFUSED: [string, string][] = [
    ['', 'unexpected character at 0'],
    [' ', 'unexpected character at 1'],
    ['{', 'expected a key at 1'],
    ['[', 'unexpected character at 1'],
    ['{"a"}', "expected ':' at 4"],
    ['{"a" 1}', "expected ':' at 5"],
    ['{"a": 1,}', 'expected a key at 8'],
    ['{"a": 1, 2}', 'expected a key at 9'],
    ['[1,]', 'unexpected character at 3'],
    ['[1 2]', "expected ',' or ']' at 3"],
    ['[1', "expected ',' or ']' at 2"],
    ['{"a": 1 "b": 2}', "expected ',' or '}' at 8"],
    ['{"a": 1', "expected ',' or '}' at 7"],
    ['{1: 2}', 'expected a key at 1'],
    ['tru', 'unexpected character at 0'],
    ['nul', 'unexpected character at 0'],
    ['nan', 'unexpected character at 0'],
    ['infinity', 'unexpected character at 0'],
    ['+1', 'unexpected character at 0'],
    ['-', 'unexpected character at 0'],
    ['.5', 'unexpected character at 0'],
    ['01', 'extra data after the JSON value'],
    ['1.', 'extra data after the JSON value'],
    ['1e', 'extra data after the JSON value'],
    ['[1] 2', 'extra data after the JSON value'],
    ['{"a": 1}}', 'extra data after the JSON value'],
    ['"abc', 'unterminated string'],
    ['"', 'unterminated string'],
    ['"\\', 'a bad escape at 1'],
    ['"a\nb"', 'a control character inside a string'],
    ['"a\x1fb"', 'a control character inside a string'],
    ['"a\x00b"', 'a control character inside a string'],
    ['"\\x"', 'a bad escape at 1'],
    ['"ab\\u12"', 'a bad escape at 3'],
    ['"\\u12G4"', 'a bad escape at 1'],
    ['"\\u 123"', 'a bad escape at 1'],
    ['"\\U0041"', 'a bad escape at 1'],
  ];
  it.each(REFUSED)('%j: %s', (text, message) => {
    expect(() => parsePythonJson(text)).toThrow(PythonJsonError);
    expect(() => parsePythonJson(text)).toThrow(new PythonJsonError(message));
  });

  it('a string of a 0x20 and a 0x7f is not refused (only controls below 0x20 are)', () => {
    expect(parsePythonJson('"\x20\x7f"')).toEqual({ kind: 'string', value: ' \x7f' });
  });

  it(`nesting: ${MAX_DEPTH} levels below the top are read, one more is refused, never a stack overflow`, () => {
    const nested = (n: number) => '['.repeat(n) + '1' + ']'.repeat(n);
    expect(MAX_DEPTH).toBe(512);
    expect(roundTrip(nested(MAX_DEPTH))).toBe(nested(MAX_DEPTH));
    expect(() => parsePythonJson(nested(MAX_DEPTH + 1))).toThrow(new PythonJsonError('nested deeper than 512'));
    const objects = (n: number) => '{"a": '.repeat(n) + '1' + '}'.repeat(n);
    expect(roundTrip(objects(MAX_DEPTH))).toBe(objects(MAX_DEPTH));
    expect(() => parsePythonJson(objects(MAX_DEPTH + 1))).toThrow(PythonJsonError);
    expect(() => parsePythonJson('['.repeat(100_000))).toThrow(PythonJsonError);
  });
});

describe("pythonFloatRepr: Python's repr() of a float", () => {
  // From python3: repr(x) for each.
  const REPRS: [number, string][] = [
    [NaN, 'NaN'],
    [Infinity, 'Infinity'],
    [-Infinity, '-Infinity'],
    [0, '0.0'],
    [-0, '-0.0'],
    [1e16, '1e+16'],
    [1e15, '1000000000000000.0'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [1.5, '1.5'],
    [-1.5, '-1.5'],
    [123.456, '123.456'],
    [1e-7, '1e-07'],
    [2.5e-5, '2.5e-05'],
    [-2.5e-5, '-2.5e-05'],
    [1e100, '1e+100'],
    [1.2345e-300, '1.2345e-300'],
    [12345.0, '12345.0'],
    [0.5, '0.5'],
    [0.000123, '0.000123'],
    [1234567890123456.8, '1234567890123456.8'],
    [5e-324, '5e-324'],
  ];
  it.each(REPRS)('%s', (x, python) => {
    expect(pythonFloatRepr(x)).toBe(python);
  });
});
