/**
 * A form elicitation asked field by field (spec: Client Features › Elicitation, form mode):
 * each property of the requested schema is one question showing its title, description,
 * type, choices (`enum`, titled `oneOf`, legacy `enumNames`, and multi-select arrays) and
 * default (SEP-1034: Enter keeps it). Answers are converted to the property's type and
 * re-asked when they do not fit. `!decline` or `!cancel` at any question ends the form with
 * that action.
 */
import type { JSONObject } from '../jsonrpc/types.js';
import { formatIssues, validateElicitationContent } from '../schema/index.js';
import type { ElicitFormParams, ElicitResult } from '../types.js';
import type { Asker } from './ask.js';
import { clean } from './terminal.js';

/** How many times one question is re-asked after an answer that does not fit, before the form is cancelled. */
export const MAX_ATTEMPTS_PER_FIELD = 10;

interface Choice {
  value: string;
  title: string;
}

/** The choices of a single-select string property, or undefined. */
function choicesOf(field: JSONObject): Choice[] | undefined {
  if (Array.isArray(field.oneOf)) {
    return (field.oneOf as JSONObject[])
      .filter((o) => typeof o?.const === 'string')
      .map((o) => ({ value: o.const as string, title: typeof o.title === 'string' ? o.title : (o.const as string) }));
  }
  if (Array.isArray(field.enum)) {
    const names = Array.isArray(field.enumNames) ? field.enumNames : [];
    return (field.enum as unknown[]).map((v, i) => ({ value: String(v), title: typeof names[i] === 'string' ? (names[i] as string) : String(v) }));
  }
  return undefined;
}

/** The choices of a multi-select array property, or undefined. */
function multiChoicesOf(field: JSONObject): Choice[] | undefined {
  if (field.type !== 'array' || typeof field.items !== 'object' || field.items === null) return undefined;
  const items = field.items as JSONObject;
  if (Array.isArray(items.anyOf)) {
    return (items.anyOf as JSONObject[])
      .filter((o) => typeof o?.const === 'string')
      .map((o) => ({ value: o.const as string, title: typeof o.title === 'string' ? o.title : (o.const as string) }));
  }
  return choicesOf(items);
}

function describeDefault(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'boolean') return ` [${value ? 'yes' : 'no'}]`;
  if (Array.isArray(value)) return ` [${value.join(',')}]`;
  return ` [${clean(String(value), true)}]`;
}

/** Converts one answer for `field`; returns `{ error }` when it does not fit. */
function convert(answer: string, field: JSONObject): { value: string | number | boolean | string[] } | { error: string } {
  const multi = multiChoicesOf(field);
  if (multi !== undefined) {
    const picked: string[] = [];
    for (const part of answer
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')) {
      const choice = pick(part, multi);
      if (choice === undefined) return { error: `${JSON.stringify(part)} is not one of the choices` };
      if (!picked.includes(choice)) picked.push(choice);
    }
    return { value: picked };
  }
  const single = choicesOf(field);
  if (single !== undefined) {
    const choice = pick(answer.trim(), single);
    return choice === undefined ? { error: 'give a number or a value from the list' } : { value: choice };
  }
  switch (field.type) {
    case 'boolean': {
      const a = answer.trim().toLowerCase();
      if (['y', 'yes', 'true', '1'].includes(a)) return { value: true };
      if (['n', 'no', 'false', '0'].includes(a)) return { value: false };
      return { error: 'answer yes or no' };
    }
    case 'integer':
      return /^-?\d+$/.test(answer.trim()) ? { value: Number(answer) } : { error: 'give a whole number' };
    case 'number':
      return answer.trim() !== '' && Number.isFinite(Number(answer)) ? { value: Number(answer) } : { error: 'give a number' };
    default:
      return { value: answer };
  }
}

/** A choice by its number (1-based), value or title. */
function pick(answer: string, choices: Choice[]): string | undefined {
  if (/^\d+$/.test(answer)) {
    const n = Number(answer);
    if (n >= 1 && n <= choices.length) return choices[n - 1]!.value;
  }
  return choices.find((c) => c.value === answer || c.title === answer)?.value;
}

/**
 * Asks the form of `params` through `asker` and resolves with the person's answer. Fields
 * left empty get no value (the client fills in schema defaults, SEP-1034); a required field
 * without a default is asked again.
 */
export async function askForm(params: ElicitFormParams, asker: Asker): Promise<ElicitResult> {
  const schema = params.requestedSchema as unknown as JSONObject;
  const properties = (schema.properties ?? {}) as Record<string, JSONObject>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  asker.say(`The server asks: ${clean(params.message)}`);
  asker.say('(Enter keeps the [default]; type !decline or !cancel to refuse the whole form)');
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const [name, field] of Object.entries(properties)) {
    const title = typeof field.title === 'string' ? field.title : name;
    const description = typeof field.description === 'string' ? ` - ${clean(field.description, true)}` : '';
    const multi = multiChoicesOf(field);
    const choices = multi ?? choicesOf(field);
    if (choices !== undefined) {
      asker.say(`${clean(title, true)}${description}${multi ? ' (pick one or more, comma-separated)' : ''}:`);
      choices.forEach((c, i) => {
        asker.say(`  ${i + 1}) ${clean(c.title, true)}${c.title !== c.value ? ` (${clean(c.value, true)})` : ''}`);
      });
    }
    const kind = choices ? 'choice' : field.type === 'boolean' ? 'yes/no' : String(field.type ?? 'string');
    const question = `${clean(title, true)}${choices ? '' : description} (${kind}${required.has(name) ? ', required' : ''})${describeDefault(field.default)}: `;
    let attempts = 0;
    for (;;) {
      if (++attempts > MAX_ATTEMPTS_PER_FIELD) {
        asker.say('Too many answers that do not fit; cancelling the form.');
        return { action: 'cancel' };
      }
      const answer = await asker.ask(question);
      if (answer.trim() === '!decline') return { action: 'decline' };
      if (answer.trim() === '!cancel') return { action: 'cancel' };
      if (answer === '') {
        if (required.has(name) && field.default === undefined) {
          asker.say('  this field is required');
          continue;
        }
        break;
      }
      const converted = convert(answer, field);
      if ('error' in converted) {
        asker.say(`  ${converted.error}`);
        continue;
      }
      const issues = validateElicitationContent({ type: 'object', properties: { [name]: field } }, { [name]: converted.value });
      if (issues.length > 0) {
        asker.say(`  ${formatIssues(issues)}`);
        continue;
      }
      content[name] = converted.value;
      break;
    }
  }
  const send = (await asker.ask('Send this answer? [Y/n] ')).trim().toLowerCase();
  if (send !== '' && send !== 'y' && send !== 'yes') return { action: 'decline' };
  return { action: 'accept', content };
}
