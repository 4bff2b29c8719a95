// The environment contract is the same for every example app. It lives in the
// Express example until the lead moves it to a shared module; re-exported, not copied.
// TODO(lead): point this at the shared module.
export {
  type AppConfig,
  type ConfigResult,
  type Env,
  loadConfig,
  MAX_SEED_PETS,
} from '../../express-app/src/config.js';
