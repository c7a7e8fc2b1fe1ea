// Names for the call frames of V8's CPU and heap profiles: `function file:line`, the file relative
// to node_modules or to the repository.
import { REPO_ROOT } from './processes.ts';

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

export function frameName(frame: CallFrame): string {
  const where = frame.url ? ` ${shortUrl(frame.url)}:${frame.lineNumber + 1}` : '';
  return `${frame.functionName || '(anonymous)'}${where}`;
}

function shortUrl(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) return path.slice(nm + '/node_modules/'.length);
  return path.startsWith(REPO_ROOT) ? path.slice(REPO_ROOT.length + 1) : path;
}
