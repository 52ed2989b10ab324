/** Option checks shared by the Redis pieces. */

/** `value` when it is a positive integer; throws RangeError naming option `name` otherwise. */
export function positiveInteger(name: string, value: number): number {
  if (!(Number.isInteger(value) && value >= 1)) throw new RangeError(`${name} must be a positive integer`);
  return value;
}
