import type Koa from 'koa';
import type { ProxyState } from './state.js';

export type ProxyContext = Koa.ParameterizedContext<ProxyState>;
export type ProxyMiddleware = Koa.Middleware<ProxyState>;
