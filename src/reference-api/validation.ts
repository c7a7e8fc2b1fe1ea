// Request-body validation with Django REST framework's rules and messages (codes as drf-exceptions-hog
// reports them: DRF's `invalid` becomes `invalid_input`). Only the fields a schema names are read, so
// read-only and unknown fields are silently ignored, as in DRF. The first failing field is reported.
import { isServiceEmail } from '../wire/email.ts';
import { validationError } from './api-errors.ts';
import { formatTimestamp, parseTimestamp } from './time.ts';

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

export interface FieldSpec {
  kind: 'string' | 'uuid' | 'boolean' | 'int32' | 'datetime' | 'email' | 'choice' | 'json' | 'object' | 'list' | 'datetime_list';
  required?: boolean;
  nullable?: boolean;
  /** Strings only: whether "" is accepted (DRF's allow_blank, off by default). */
  blank?: boolean;
  maxLength?: number;
  min?: number;
  max?: number;
  choices?: readonly (string | number)[];
}

export type Schema = Record<string, FieldSpec>;
export type Fields = Record<string, unknown>;

/** Python's type name, for DRF's "got type ..." messages. */
function pythonType(value: unknown): string {
  if (value === null) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return 'dict';
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const TRUE_VALUES = new Set(['t', 'y', 'yes', 'true', 'on', '1']);
const FALSE_VALUES = new Set(['f', 'n', 'no', 'false', 'off', '0']);

function invalid(detail: string, attr: string): never {
  throw validationError('invalid_input', detail, attr);
}

function toText(value: unknown, attr: string, spec: FieldSpec): string {
  // DRF's CharField takes numbers (as text) but not booleans or containers, and trims whitespace.
  if (typeof value === 'boolean' || (typeof value !== 'string' && typeof value !== 'number')) invalid('Not a valid string.', attr);
  const text = String(value).trim();
  if (text === '' && !spec.blank) throw validationError('blank', 'This field may not be blank.', attr);
  if (spec.maxLength !== undefined && text.length > spec.maxLength) {
    throw validationError('max_length', `Ensure this field has no more than ${spec.maxLength} characters.`, attr);
  }
  return text;
}

function toDatetime(value: unknown, attr: string): string {
  const parsed = parseTimestamp(value);
  if (!parsed)
    invalid('Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].', attr);
  return formatTimestamp(parsed);
}

function validateValue(value: unknown, spec: FieldSpec, attr: string): unknown {
  if (value === null) {
    if (spec.nullable) return null;
    throw validationError('null', 'This field may not be null.', attr);
  }
  switch (spec.kind) {
    case 'string':
      return toText(value, attr, spec);
    case 'uuid': {
      // DRF's UUIDField: any of Python's UUID spellings; answered in the hyphenated lower-case form.
      const hex =
        typeof value === 'string'
          ? value
              .trim()
              .replace(/^urn:uuid:/i, '')
              .replace(/[{}-]/g, '')
          : '';
      if (!/^[0-9a-f]{32}$/i.test(hex)) invalid('Must be a valid UUID.', attr);
      const lower = hex.toLowerCase();
      return `${lower.slice(0, 8)}-${lower.slice(8, 12)}-${lower.slice(12, 16)}-${lower.slice(16, 20)}-${lower.slice(20)}`;
    }
    case 'email': {
      const text = toText(value, attr, spec);
      if (!isServiceEmail(text)) invalid('Enter a valid email address.', attr);
      return text;
    }
    case 'boolean': {
      if (typeof value === 'boolean') return value;
      const key = String(value).toLowerCase();
      if ((typeof value === 'string' || typeof value === 'number') && TRUE_VALUES.has(key)) return true;
      if ((typeof value === 'string' || typeof value === 'number') && FALSE_VALUES.has(key)) return false;
      return invalid('Must be a valid boolean.', attr);
    }
    case 'int32': {
      // DRF's IntegerField: integers, or text like "12" / "12.0".
      const text = typeof value === 'number' || typeof value === 'string' ? String(value).trim().replace(/\.0*$/, '') : '';
      if (!/^[+-]?\d+$/.test(text)) invalid('A valid integer is required.', attr);
      const number = Number(text);
      const min = spec.min ?? INT32_MIN;
      const max = spec.max ?? INT32_MAX;
      if (number > max) throw validationError('max_value', `Ensure this value is less than or equal to ${max}.`, attr);
      if (number < min) throw validationError('min_value', `Ensure this value is greater than or equal to ${min}.`, attr);
      return number;
    }
    case 'choice': {
      const choices = spec.choices ?? [];
      const match = choices.find((choice) => String(choice) === String(value));
      if (match === undefined || typeof value === 'object') {
        throw validationError(
          'invalid_choice',
          `"${typeof value === 'boolean' ? (value ? 'True' : 'False') : String(value)}" is not a valid choice.`,
          attr,
        );
      }
      return match;
    }
    case 'datetime':
      return toDatetime(value, attr);
    case 'datetime_list':
      if (!Array.isArray(value)) throw validationError('not_a_list', `Expected a list of items but got type "${pythonType(value)}".`, attr);
      return value.map((item, index) => toDatetime(item, `${attr}__${index}`));
    case 'object':
      if (!isPlainObject(value))
        throw validationError('not_a_dict', `Expected a dictionary of items but got type "${pythonType(value)}".`, attr);
      return value;
    case 'list':
      if (!Array.isArray(value)) throw validationError('not_a_list', `Expected a list of items but got type "${pythonType(value)}".`, attr);
      return value;
    case 'json':
      return value;
  }
}

/**
 * Validates `body` against `schema`. `partial` (PATCH) checks only the fields given; otherwise missing
 * required fields fail. Returns the given fields, normalized (trimmed text, numbers, ISO timestamps).
 * `attrPrefix` names nested fields the live way (`destination__type`).
 */
export function validateFields(body: unknown, schema: Schema, partial: boolean, attrPrefix = ''): Fields {
  if (!isPlainObject(body)) {
    throw validationError(
      'invalid_input',
      `Invalid data. Expected a dictionary, but got ${pythonType(body)}.`,
      attrPrefix ? attrPrefix.slice(0, -2) : null,
    );
  }
  const out: Fields = {};
  for (const [name, spec] of Object.entries(schema)) {
    const attr = `${attrPrefix}${name}`;
    if (!(name in body) || body[name] === undefined) {
      if (spec.required && !partial) throw validationError('required', 'This field is required.', attr);
      continue;
    }
    out[name] = validateValue(body[name], spec, attr);
  }
  return out;
}
