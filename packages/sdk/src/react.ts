// `@affix/sdk/react`: AffixProvider loads the tracker once; useAffix() gives the instance (null until
// loaded, and always null on the server).
import { createContext, createElement, type ReactNode, useContext, useEffect, useState } from 'react';
import { type LoadAffixOptions, loadAffix } from './index.js';
import type { AffixTracker } from './types.js';

const AffixContext = createContext<AffixTracker | null>(null);

export interface AffixProviderProps extends LoadAffixOptions {
  programId: number;
  children?: ReactNode;
}

export function AffixProvider({ programId, children, ...options }: AffixProviderProps) {
  const [affix, setAffix] = useState<AffixTracker | null>(null);
  useEffect(() => {
    let active = true;
    void loadAffix(programId, options).then((instance) => {
      if (active) setAffix(instance);
    });
    return () => {
      active = false;
    };
    // The tracker loads once per page; a later prop change does not reload it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [programId]);
  return createElement(AffixContext.Provider, { value: affix }, children);
}

export function useAffix(): AffixTracker | null {
  return useContext(AffixContext);
}
