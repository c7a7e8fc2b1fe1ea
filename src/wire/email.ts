// E-mail addresses as the service's Django EmailValidator accepts them: an ASCII local part (a
// dot-atom or a quoted string), then a host name, an internationalised domain checked in its
// punycode form, `localhost`, or an IP literal in brackets; at most 320 characters.
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

const MAX_LENGTH = 320;
const DOT_ATOM = /^[-!#$%&'*+/=?^_`{}|~0-9a-z]+(\.[-!#$%&'*+/=?^_`{}|~0-9a-z]+)*$/i;
// biome-ignore lint/suspicious/noControlCharactersInRegex: Django's quoted-string rule names these control characters.
const QUOTED = /^"([\x01-\x08\x0b\x0c\x0e-\x1f!#-[\]-\x7f]|\\[\x01-\x09\x0b\x0c\x0e-\x7f])*"$/i;
const HOST = /^((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+)(?:[a-z0-9-]{2,63})$/i;
const LITERAL = /^\[([a-f0-9:.]+)\]$/i;
const ALLOWED_HOSTS = new Set(['localhost']);

/** Whether Django's EmailValidator accepts the address. */
export function isServiceEmail(value: string): boolean {
  if (value.length === 0 || value.length > MAX_LENGTH) return false;
  const at = value.lastIndexOf('@');
  if (at === -1) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!DOT_ATOM.test(local) && !QUOTED.test(local)) return false;
  if (ALLOWED_HOSTS.has(domain) || isDomainPart(domain)) return true;
  // An internationalised domain: valid when its punycode form is.
  const ascii = domainToASCII(domain);
  return ascii !== '' && ascii !== domain && isDomainPart(ascii);
}

function isDomainPart(domain: string): boolean {
  if (HOST.test(domain)) return !domain.endsWith('-');
  const literal = LITERAL.exec(domain);
  return literal !== null && isIP(literal[1] as string) !== 0;
}
