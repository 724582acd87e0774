import { register } from 'node:module';

register('./matrix-resolve-hooks.mjs', import.meta.url, { data: process.env.SKILLBOX_MATRIX_MODULES });
