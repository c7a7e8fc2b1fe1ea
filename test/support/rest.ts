// Direct REST reads of the reference API: the ground truth the gateway's answers are compared with.
import { request } from 'undici';

export async function restGet<T = any>(baseUrl: string, path: string, key: string): Promise<T> {
  const response = await request(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const body = await response.body.json();
  if (response.statusCode !== 200) throw new Error(`GET ${path} answered ${response.statusCode}: ${JSON.stringify(body)}`);
  return body as T;
}
