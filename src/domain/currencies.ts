// ISO 4217 currency codes, as the runtime's ICU data knows them.
const CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

export function isCurrencyCode(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && CODES.has(code);
}
